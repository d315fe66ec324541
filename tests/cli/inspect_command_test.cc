// `inferlab inspect`: inputs/outputs, histogram, FLOPs, parameters, and a
// model with unsupported operators listed rather than failing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

TEST(CliInspect, ShowsInputsOutputsAndOperators) {
  const CommandResult result = run_cli("inspect " + node_model("test_add"));
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(contains(result.stdout_text, "x: float[3, 4, 5]")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stdout_text, "sum: float[3, 4, 5]")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stdout_text, "Add")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stdout_text, "unsupported operators: none")) << result.stdout_text;
}

TEST(CliInspect, CountsMatMulFlopsFromInferredShapes) {
  // A[3,4] x B[4,3]: 3*3*4 multiply-accumulates, 72 FLOPs.
  const CommandResult result = run_cli("inspect " + node_model("test_matmul_2d") + " --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json summary = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(summary["flops"], 72);
  EXPECT_EQ(summary["operators"]["MatMul"], 1);
  EXPECT_EQ(summary["opsets"]["ai.onnx"].get<int64_t>() >= 7, true);
}

TEST(CliInspect, CountsConvFlopsAndParameters) {
  // x[1,1,7,5], W[1,1,3,3], stride 2, padding 1: y[1,1,4,3] -> 12*9 MACs.
  const CommandResult result =
      run_cli("inspect " + node_model("test_conv_with_strides_padding") + " --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json summary = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(summary["flops"], 2 * 12 * 9);
  EXPECT_EQ(summary["parameters"]["count"], 0);  // W is a graph input here
}

TEST(CliInspect, ListsUnsupportedOperatorsInsteadOfFailing) {
  const std::string dir = make_temp_dir("cli-inspect");
  const std::string model = make_unsupported_op_model(dir);
  const CommandResult result = run_cli("inspect " + model + " --json " + dir + "/summary.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(contains(result.stdout_text,
                       "unsupported operators: 3\n"
                       "  Foo (opset 13, nodes 'foo1', 'foo2')\n"
                       "  com.microsoft.FusedConv (node 'fused1')\n"
                       "  custom.domain.Bar (node 'bar1')\n"))
      << result.stdout_text;
  EXPECT_TRUE(contains(result.stderr_text, "skipping the ONNX checker")) << result.stderr_text;
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir + "/summary.json"));
  ASSERT_EQ(summary["unsupported"].size(), 3u);
  EXPECT_EQ(summary["unsupported"][0]["domain"], "ai.onnx");
  EXPECT_EQ(summary["unsupported"][1]["domain"], "com.microsoft");
  EXPECT_EQ(summary["unsupported"][1]["op_type"], "FusedConv");
  EXPECT_EQ(summary["unsupported"][2]["domain"], "custom.domain");
  EXPECT_EQ(summary["unsupported"][2]["op_type"], "Bar");
  EXPECT_EQ(summary["unsupported"][2]["opset"], 2);
  EXPECT_EQ(summary["operators"]["com.microsoft.FusedConv"], 1);
  EXPECT_EQ(summary["inputs"][0]["shape"], nlohmann::json({"batch", 3}));
  std::filesystem::remove_all(dir);
}

TEST(CliInspect, DumpPrintsTheGraph) {
  const CommandResult result = run_cli("inspect " + node_model("test_add") + " --dump");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(contains(result.stdout_text, "Add(")) << result.stdout_text;
}

}  // namespace
}  // namespace inferlab::testing
