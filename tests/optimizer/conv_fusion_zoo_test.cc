// The convolution fusions on the zoo's CNNs (resnet50, mobilenet_v2,
// efficientnet_b0 and their _bn variants, opset 17, batch 1): level 2 must
// fuse (fewer nodes, FusedConv present, no BatchNormalization left) and
// give level 0's outputs at FP32 tolerance; the level-2 model exported for
// ONNX Runtime (optimizer/onnx_export.h) runs in the onnxruntime backend
// with level 0's outputs too (skipped when that plugin is not built).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "inferlab/backends/registry.h"
#include "inferlab/core/npy.h"
#include "inferlab/optimizer/onnx_export.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

struct ZooRun {
  runtime::TensorMap outputs;
  int64_t nodes = 0;
  std::map<std::string, int64_t> ops;
  model::Model optimized;
};

ZooRun run_at_level(const std::string& path, const Tensor& input, int level) {
  runtime::SessionOptions options;
  options.opt_level = level;
  options.threads = 1;
  runtime::Session session = runtime::Session::load(path, options);
  ZooRun run;
  run.outputs = session.run({{session.inputs().at(0).name, input}});
  run.nodes = static_cast<int64_t>(session.model().graph->nodes.size());
  for (const model::Node& node : session.model().graph->nodes) ++run.ops[op_key(node)];
  run.optimized = session.model_with_weights();  // the run released the prepacked ones
  return run;
}

class ConvFusionZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvFusionZoo, Level2MatchesLevel0) {
  const std::string base = testing::cache_dir() + "/models/" + GetParam() + "_op17";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not in the cache";
  const Tensor input = read_npy(base + ".input.npy");
  const ZooRun level0 = run_at_level(base + ".onnx", input, 0);
  const ZooRun level2 = run_at_level(base + ".onnx", input, 2);
  std::cout << GetParam() << ": nodes " << level0.nodes << " -> " << level2.nodes << " (";
  for (const auto& [op, count] : level2.ops) std::cout << op << " " << count << ", ";
  std::cout << ")\n";
  EXPECT_LT(level2.nodes, level0.nodes);
  EXPECT_GT(level2.ops.count("ai.inferlab::FusedConv"), 0u);
  EXPECT_EQ(level2.ops.count("BatchNormalization"), 0u);
  EXPECT_EQ(level2.ops.count("Relu"), 0u);
  ASSERT_EQ(level0.outputs.size(), level2.outputs.size());
  for (const auto& [name, reference] : level0.outputs) {
    ASSERT_TRUE(level2.outputs.count(name)) << name;
    const double error = testing::relative_error(level2.outputs.at(name), reference);
    std::cout << GetParam() << ": output " << name << " max error " << error << "\n";
    EXPECT_LE(error, 1e-4) << name;
  }
}

TEST_P(ConvFusionZoo, ExportedLevel2RunsInOnnxRuntime) {
  const std::string base = testing::cache_dir() + "/models/" + GetParam() + "_op17";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not in the cache";
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const backends::BackendInfo info = registry.probe("onnxruntime");
  if (!info.available) GTEST_SKIP() << "onnxruntime backend unavailable";
  const Tensor input = read_npy(base + ".input.npy");
  const ZooRun level0 = run_at_level(base + ".onnx", input, 0);
  const ZooRun level2 = run_at_level(base + ".onnx", input, 2);
  const model::Model exported = export_for_onnxruntime(level2.optimized);
  std::map<std::string, int64_t> ops;
  for (const model::Node& node : exported.graph->nodes) ++ops[op_key(node)];
  std::cout << GetParam() << " exported: " << exported.graph->nodes.size() << " nodes (";
  for (const auto& [op, count] : ops) std::cout << op << " " << count << ", ";
  std::cout << ")\n";
  const std::string path = testing::make_temp_dir("conv_fusion_zoo") + "/" + GetParam() + ".onnx";
  write_model_file(exported, path);
  auto model = registry.get("onnxruntime")->open(backends::ModelSource::resolve(path), {});
  const runtime::TensorMap outputs = model->run({{model->inputs().at(0).name, input}});
  for (const auto& [name, reference] : level0.outputs) {
    ASSERT_TRUE(outputs.count(name)) << name;
    const double error = testing::relative_error(outputs.at(name), reference);
    std::cout << GetParam() << ": onnxruntime output " << name << " max error " << error << "\n";
    EXPECT_LE(error, 1e-4) << name;
  }
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

INSTANTIATE_TEST_SUITE_P(Models, ConvFusionZoo,
                         ::testing::Values("resnet50", "resnet50_bn", "mobilenet_v2",
                                           "mobilenet_v2_bn", "efficientnet_b0",
                                           "efficientnet_b0_bn"));

}  // namespace
}  // namespace inferlab::optimizer
