// `inferlab optimize`, end to end through the binary: the --log text and
// --json log, --verbose node names, -o files that ONNX Runtime loads and
// that compute the zoo reference outputs, and usage errors for bad flags.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_test_support.h"
#include "inferlab/core/npy.h"
#include "inferlab/model/onnx_import.h"

namespace inferlab::testing {
namespace {

std::string zoo_model(const std::string& name) { return cache_dir() + "/models/" + name + ".onnx"; }

TEST(OptimizeCommand, LogShowsPassesOperatorCountsAndNodeTotals) {
  const std::string path = zoo_model("resnet50_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  const CommandResult result = run_cli("optimize " + path + " --opt-level 1 --log");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string& text = result.stdout_text;
  EXPECT_TRUE(contains(text, "optimization level 1")) << text;
  EXPECT_TRUE(contains(text, "Identity x47")) << text;
  EXPECT_TRUE(contains(text, "operators:")) << text;
  EXPECT_TRUE(contains(text, "before")) << text;
  EXPECT_TRUE(contains(text, "nodes: ")) << text;
  EXPECT_FALSE(contains(text, "/layer1/layer1.0/conv1/Conv\n")) << "node names only with --verbose";
}

TEST(OptimizeCommand, VerboseNamesTheNodesAndJsonHoldsTheLog) {
  const std::string path = zoo_model("encoder_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  const std::string dir = make_temp_dir("cli-optimize-json");
  const CommandResult result =
      run_cli("optimize " + path + " --opt-level 1 --verbose --json " + dir + "/log.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json log = nlohmann::json::parse(read_file(dir + "/log.json"));
  EXPECT_EQ(log.at("level"), 1);
  EXPECT_GT(log.at("nodes_before").get<int64_t>(), log.at("nodes_after").get<int64_t>());
  ASSERT_FALSE(log.at("passes").empty());
  const nlohmann::json& first = log.at("passes")[0];
  EXPECT_FALSE(first.at("changes").empty());
  // Every node named in the JSON log is printed with --verbose.
  const std::string name = first.at("nodes").begin().value()[0].get<std::string>();
  EXPECT_TRUE(contains(result.stdout_text, "      " + name + "\n")) << result.stdout_text;
  EXPECT_TRUE(log.at("operators").at("before").is_object());
  std::filesystem::remove_all(dir);
}

// Optimizes `name` at level 3, runs the file in ONNX Runtime (without its own
// optimizations) and compares with the zoo reference output.
void check_runs_in_onnxruntime(const std::string& name) {
  const std::string path = zoo_model(name);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  const std::string dir = make_temp_dir("cli-optimize-ort");
  const std::string optimized = dir + "/" + name + ".optimized.onnx";
  const CommandResult made = run_cli("optimize " + path + " -o " + optimized);
  ASSERT_EQ(made.exit_code, 0) << made.stderr_text;
  EXPECT_TRUE(contains(made.stdout_text, "wrote " + optimized)) << made.stdout_text;
  const model::Model model = model::import_model_file(path);
  const std::string stem = path.substr(0, path.size() - 5);
  const CommandResult ran =
      run_cli("run " + optimized + " --backend onnxruntime --opt-level 0 --input " +
              model.graph->inputs[0].name + "=" + stem + ".input.npy --output-dir " + dir +
              "/out --json -");
  ASSERT_EQ(ran.exit_code, 0) << ran.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(ran.stdout_text);
  const Tensor output = read_npy(report.at("outputs")[0].at("file").get<std::string>());
  const double error = relative_error(output, read_npy(stem + ".output.npy"));
  EXPECT_LE(error, 1e-4) << name;
  std::printf("%s: optimized file in onnxruntime, error %.3g\n", name.c_str(), error);
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCommand, Resnet50FileRunsInOnnxRuntime) { check_runs_in_onnxruntime("resnet50_op17"); }
TEST(OptimizeCommand, MobilenetV2FileRunsInOnnxRuntime) {
  check_runs_in_onnxruntime("mobilenet_v2_op17");
}
TEST(OptimizeCommand, EncoderFileRunsInOnnxRuntime) { check_runs_in_onnxruntime("encoder_op17"); }

TEST(OptimizeCommand, BadFlagsAreUsageErrors) {
  const std::string model = node_model("test_add");
  EXPECT_EQ(run_cli("optimize " + model + " --opt-level 4").exit_code, 2);
  EXPECT_EQ(run_cli("optimize " + model + " --opt-level x").exit_code, 2);
  EXPECT_EQ(run_cli("optimize " + model + " --no-such-flag").exit_code, 2);
  EXPECT_EQ(run_cli("optimize").exit_code, 2);
  EXPECT_EQ(run_cli("optimize " + model + " --shape x=1,a").exit_code, 2);
  const CommandResult unknown = run_cli("optimize " + model + " --shape nothing=1");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.stderr_text, "nothing")) << unknown.stderr_text;
}

TEST(OptimizeCommand, AMissingModelIsAnErrorNamingIt) {
  const CommandResult result = run_cli("optimize /nonexistent/model.onnx");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stderr_text, "/nonexistent/model.onnx")) << result.stderr_text;
}

TEST(OptimizeCommand, HelpDescribesEveryFlag) {
  const CommandResult result = run_cli("optimize --help");
  ASSERT_EQ(result.exit_code, 0);
  for (const char* flag : {"--opt-level", "--log", "--verbose", "-o", "--shape", "--json"}) {
    EXPECT_TRUE(contains(result.stdout_text, flag)) << flag;
  }
}

}  // namespace
}  // namespace inferlab::testing
