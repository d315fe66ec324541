// Every optimization level on every zoo model (opset 17, batch 1, including
// the _bn variants whose BatchNormalization is real, and the BERT-like
// encoder): levels 1, 2 and 3 give level 0's outputs at FP32 tolerance, and
// level 0 gives ONNX Runtime's reference outputs stored beside the model.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

constexpr double kFp32Tolerance = 1e-4;  // max|a-b| / max(1, max|ref|)

Tensor run_at_level(const std::string& path, const Tensor& input, int level, int64_t& nodes) {
  runtime::SessionOptions options;
  options.opt_level = level;
  options.threads = 1;
  runtime::Session session = runtime::Session::load(path, options);
  nodes = static_cast<int64_t>(session.model().graph->nodes.size());
  const runtime::TensorMap outputs = session.run({{session.inputs().at(0).name, input}});
  return outputs.at(session.outputs().at(0).name);
}

class ZooLevels : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooLevels, EveryLevelMatchesLevel0) {
  const std::string base = testing::cache_dir() + "/models/" + GetParam() + "_op17";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not in the cache";
  const Tensor input = read_npy(base + ".input.npy");
  int64_t nodes_level0 = 0;
  const Tensor level0 = run_at_level(base + ".onnx", input, 0, nodes_level0);
  EXPECT_LE(testing::relative_error(level0, read_npy(base + ".output.npy")), kFp32Tolerance)
      << "level 0 against ONNX Runtime's reference output";
  int64_t previous_nodes = nodes_level0;
  for (int level = 1; level <= 3; ++level) {
    int64_t nodes = 0;
    const Tensor optimized = run_at_level(base + ".onnx", input, level, nodes);
    const double error = testing::relative_error(optimized, level0);
    std::cout << GetParam() << " level " << level << ": " << nodes_level0 << " -> " << nodes
              << " nodes, error " << error << "\n";
    EXPECT_LE(error, kFp32Tolerance) << "level " << level;
    // Level 3 adds the layout conversions at the ends of the channels-last
    // chain: one in, one out on these models (none on the encoder).
    const int64_t conversions = level == 3 ? 2 : 0;
    EXPECT_LE(nodes, previous_nodes + conversions)
        << "level " << level << " has more nodes than the one below";
    previous_nodes = nodes;
  }
  EXPECT_LT(previous_nodes, nodes_level0);
}

INSTANTIATE_TEST_SUITE_P(Models, ZooLevels,
                         ::testing::Values("resnet50", "resnet50_bn", "mobilenet_v2",
                                           "mobilenet_v2_bn", "efficientnet_b0",
                                           "efficientnet_b0_bn", "encoder"));

}  // namespace
}  // namespace inferlab::optimizer
