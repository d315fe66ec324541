// OptimizeTarget::kOnnx, the graph `inferlab optimize -o` writes for ONNX
// Runtime, on a hand-built convolution chain: level 3 skips the native-only
// channels-last layout (written out, it is Transposes around every
// convolution), so the file has no more nodes than level 2's, and it still
// computes what the original computes (in ONNX Runtime, skipped without it).
#include <gtest/gtest.h>

#include <filesystem>

#include "conv_fusion_test_graph.h"
#include "inferlab/backends/registry.h"
#include "inferlab/optimizer/onnx_export.h"
#include "inferlab/optimizer/optimizer.h"

namespace inferlab::optimizer {
namespace {

using testing::count_op;
using testing::GraphBuilder;
using testing::integer;
using testing::ints;

// x -> Conv -> Relu -> MaxPool -> Conv(1x1) -> Relu -> Conv -> Add(residual)
// -> Relu -> GlobalAveragePool -> Flatten -> y: a small resnet block.
GraphBuilder conv_chain() {
  GraphBuilder g;
  g.input("x", {1, 3, 16, 16});
  g.node("Conv", {"x", g.constant("w0", {8, 3, 3, 3}), g.constant("b0", {8})}, {"c0"},
         {{"pads", ints({1, 1, 1, 1})}});
  g.node("Relu", {"c0"}, {"r0"});
  g.node("MaxPool", {"r0"}, {"p0"}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}});
  g.node("Conv", {"p0", g.constant("w1", {8, 8, 1, 1}), g.constant("b1", {8})}, {"c1"});
  g.node("Relu", {"c1"}, {"r1"});
  g.node("Conv", {"r1", g.constant("w2", {8, 8, 3, 3})}, {"c2"}, {{"pads", ints({1, 1, 1, 1})}});
  g.node("Add", {"c2", "p0"}, {"sum"});
  g.node("Relu", {"sum"}, {"r2"});
  g.node("GlobalAveragePool", {"r2"}, {"gap"});
  g.node("Flatten", {"gap"}, {"y"}, {{"axis", integer(1)}});
  g.output("y");
  return g;
}

struct Exported {
  OptimizationLog log;
  model::Model model;
};

// The chain optimized at `level` for `target`, then exported for ONNX Runtime.
Exported optimize_and_export(int level, OptimizeTarget target) {
  GraphBuilder g = conv_chain();
  OptimizeOptions options;
  options.level = level;
  options.target = target;
  Exported result;
  result.log = optimize(g.model, options, kernels::OpRegistry::reference());
  result.model = export_for_onnxruntime(g.model);
  return result;
}

int64_t node_count(const model::Model& model) {
  return static_cast<int64_t>(model.graph->nodes.size());
}

TEST(OptimizeForOnnx, Level3WritesNoMoreNodesThanLevel2AndNoLayoutTransposes) {
  const Exported level2 = optimize_and_export(2, OptimizeTarget::kOnnx);
  const Exported level3 = optimize_and_export(3, OptimizeTarget::kOnnx);
  EXPECT_LE(node_count(level3.model), node_count(level2.model));
  EXPECT_EQ(count_op(level3.model, "Transpose"), 0);
  const std::vector<std::string> skipped = {"channels_last_layout"};
  EXPECT_EQ(level3.log.skipped_passes, skipped);
  for (const PassLogEntry& entry : level3.log.passes) EXPECT_NE(entry.pass, skipped[0]);
  // What the target avoids: the native graph, written out, carries its
  // channels-last layout as Transposes.
  const Exported native = optimize_and_export(3, OptimizeTarget::kNative);
  EXPECT_GT(count_op(native.model, "Transpose"), 0);
  EXPECT_GT(node_count(native.model), node_count(level3.model));
}

// The exported FusedConv is ONNX Runtime's com.microsoft operator, which
// InferLab has no kernel for: the file runs in the onnxruntime backend.
TEST(OptimizeForOnnx, TheFileComputesWhatTheOriginalComputesInOnnxRuntime) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  if (!registry.probe("onnxruntime").available) GTEST_SKIP() << "onnxruntime backend unavailable";
  GraphBuilder original = conv_chain();
  const std::vector<Tensor> inputs = testing::random_inputs(original.model);
  const std::vector<Tensor> expected = testing::run_model(original.model, inputs);
  const Exported level3 = optimize_and_export(3, OptimizeTarget::kOnnx);
  for (const model::Node& node : level3.model.graph->nodes) {
    EXPECT_NE(node.domain, "ai.inferlab") << node.name << " " << node.op_type;
  }
  const std::string dir = inferlab::testing::make_temp_dir("export_target");
  write_model_file(level3.model, dir + "/chain.onnx");
  auto model =
      registry.get("onnxruntime")->open(backends::ModelSource::resolve(dir + "/chain.onnx"), {});
  const backends::TensorMap outputs = model->run({{"x", inputs.at(0)}});
  ASSERT_TRUE(outputs.count("y"));
  EXPECT_LE(inferlab::testing::relative_error(outputs.at("y"), expected.at(0)), 1e-5);
  std::filesystem::remove_all(dir);
}

TEST(OptimizeForOnnx, SkipsNothingBelowLevel3AndTheNativeTargetSkipsNothing) {
  EXPECT_TRUE(optimize_and_export(2, OptimizeTarget::kOnnx).log.skipped_passes.empty());
  const Exported native = optimize_and_export(3, OptimizeTarget::kNative);
  EXPECT_TRUE(native.log.skipped_passes.empty());
  bool layout_ran = false;
  for (const PassLogEntry& entry : native.log.passes)
    layout_ran = layout_ran || entry.pass == "channels_last_layout";
  EXPECT_TRUE(layout_ran);
}

}  // namespace
}  // namespace inferlab::optimizer
