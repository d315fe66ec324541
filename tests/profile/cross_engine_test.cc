// Lining up two engines' profiles: hand-made profiles whose alignment is
// known, then mobilenet_v2 and resnet50 on native and onnxruntime.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "inferlab/backends/registry.h"
#include "profile_test_support.h"
#include "test_util.h"

namespace inferlab::profile {
namespace {

BackendProfile engine(const std::string& name, const std::vector<backends::NodeEvent>& events,
                      const NodeFactsMap& facts = {}) {
  return aggregate_runs(name, {{10'000'000, events}}, facts);
}

const CrossNodeRow* row_with(const CrossEngine& cross, const std::string& onnx_node) {
  for (const CrossNodeRow& row : cross.nodes) {
    if (std::find(row.onnx_nodes.begin(), row.onnx_nodes.end(), onnx_node) != row.onnx_nodes.end())
      return &row;
  }
  return nullptr;
}

TEST(CrossEngine, FusedNodeLinesUpWithTheNodesItReplaced) {
  NodeFactsMap facts;
  facts["conv1"].covers = {"conv1", "relu1"};
  const BackendProfile first =
      engine("native", {event("conv1", "FusedConv", 0, 3), event("fc", "Gemm", 3, 1)}, facts);
  const BackendProfile second = engine(
      "onnxruntime", {event("conv1_token_7", "FusedConv", 0, 1.5), event("relu1", "Relu", 1.5, 0.5),
                      event("fc", "Gemm", 2, 2), event("reorder_42", "ReorderOutput", 4, 0.25)});
  const CrossEngine cross = compare_engines(first, second, {"conv1", "relu1", "fc"});
  ASSERT_EQ(cross.nodes.size(), 2u);
  const CrossNodeRow* conv = row_with(cross, "conv1");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->onnx_nodes, (std::vector<std::string>{"conv1", "relu1"}));
  EXPECT_EQ(conv->first_nodes, (std::vector<std::string>{"conv1"}));
  EXPECT_EQ(conv->second_nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(conv->first_ms, 3.0);
  EXPECT_DOUBLE_EQ(conv->second_ms, 2.0);
  const CrossNodeRow* fc = row_with(cross, "fc");
  ASSERT_NE(fc, nullptr);
  EXPECT_DOUBLE_EQ(fc->second_ms, 2.0);
  EXPECT_EQ(cross.first_unmatched, 0);
  EXPECT_EQ(cross.second_unmatched, 1);  // the reorder covers no node of the file
  EXPECT_DOUBLE_EQ(cross.first_matched_share, 1.0);
  EXPECT_DOUBLE_EQ(cross.second_matched_share, 4.0 / 4.25);
}

TEST(CrossEngine, OperatorTypesLineUpByBaseType) {
  const BackendProfile first = engine(
      "native",
      {event("a", "FusedConv", 0, 1.5), event("c", "Conv", 1.5, 0.5), event("b", "Add", 2, 1)});
  const BackendProfile second = engine("onnxruntime", {event("a", "Conv", 0, 1)});
  const CrossEngine cross = compare_engines(first, second, {"a", "b", "c"});
  ASSERT_EQ(cross.op_types.size(), 2u);
  EXPECT_EQ(cross.op_types[0].op_type, "Conv");
  EXPECT_DOUBLE_EQ(cross.op_types[0].first_ms, 2.0);
  EXPECT_DOUBLE_EQ(cross.op_types[0].second_ms, 1.0);
  EXPECT_EQ(cross.op_types[1].op_type, "Add");
  EXPECT_DOUBLE_EQ(cross.op_types[1].second_ms, 0.0);
  EXPECT_EQ(cross.first_unmatched, 2);
  EXPECT_EQ(base_op_type("FusedMatMul"), "MatMul");
  EXPECT_EQ(base_op_type("SkipLayerNormalization"), "SkipLayerNormalization");
}

// Both engines on a zoo model: most of each engine's kernel time lines up
// with nodes of the other, and the conv nodes have their FLOPs.
// Two runs of native and onnxruntime on the zoo model `name`, or nullopt
// with the reason in `skip` when the model or ONNX Runtime is missing.
std::optional<ProfileOptions> both_engines(const std::string& name,
                                           backends::BackendRegistry& registry, std::string& skip) {
  const std::string path = testing::cache_dir() + "/models/" + name + ".onnx";
  if (!std::filesystem::exists(path)) {
    skip = "missing " + path;
    return std::nullopt;
  }
  if (!registry.probe("onnxruntime").available) {
    skip = "onnxruntime unavailable";
    return std::nullopt;
  }
  ProfileOptions options;
  options.model_path = path;
  options.backends = {"native", "onnxruntime"};
  options.runs = 2;
  return options;
}

void check_zoo_model(const std::string& name) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  std::string skip;
  std::optional<ProfileOptions> options = both_engines(name, registry, skip);
  if (!options) GTEST_SKIP() << skip;
  options->warmup = 1;
  const ProfileResult result = run_profile(*options, registry);
  ASSERT_EQ(result.backends.size(), 2u);
  ASSERT_TRUE(result.cross.has_value());
  const CrossEngine& cross = *result.cross;
  EXPECT_GT(cross.nodes.size(), 20u);
  EXPECT_GT(cross.first_matched_share, 0.9) << cross.first_unmatched << " native nodes unmatched";
  EXPECT_GT(cross.second_matched_share, 0.9)
      << cross.second_unmatched << " onnxruntime nodes unmatched";
  for (const BackendProfile& profile : result.backends) {
    EXPECT_GT(profile.flops_per_run, 1e8) << profile.backend;
    EXPECT_EQ(profile.baseline_ms.size(), 2u);
  }
  // Native fused convolutions name the ONNX nodes they cover.
  const BackendProfile& native = result.backends[0];
  const bool any_fused = std::any_of(native.nodes.begin(), native.nodes.end(),
                                     [](const NodeStats& node) { return node.covers.size() > 1; });
  EXPECT_TRUE(any_fused);
}

// Two engines in one process take turns only after a pause, so the other's
// spinning threads have given the cores back (at 2 threads InferLab's
// resnet50 once profiled 1.6x slower than alone); a negative pause is an
// error naming it.
TEST(CrossEngine, EnginesPauseBeforeTheirTurns) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  std::string skip;
  std::optional<ProfileOptions> both = both_engines("mobilenet_v2_op17", registry, skip);
  if (!both) GTEST_SKIP() << skip;
  ProfileOptions& options = *both;
  options.warmup = 0;
  options.baseline = false;
  options.settle_ms = 150.0;
  const auto start = std::chrono::steady_clock::now();
  const ProfileResult result = run_profile(options, registry);
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // Two warm-up turns and two runs of two turns: six pauses at least.
  EXPECT_GE(elapsed_ms, 6 * options.settle_ms);
  EXPECT_DOUBLE_EQ(result.options.settle_ms, 150.0);

  options.settle_ms = -1.0;
  try {
    run_profile(options, registry);
    ADD_FAILURE() << "a negative settle_ms was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("settle_ms"), std::string::npos) << error.what();
  }
}

TEST(CrossEngine, MobileNetV2OnNativeAndOnnxRuntime) { check_zoo_model("mobilenet_v2_op17"); }
TEST(CrossEngine, ResNet50OnNativeAndOnnxRuntime) { check_zoo_model("resnet50_op17"); }

}  // namespace
}  // namespace inferlab::profile
