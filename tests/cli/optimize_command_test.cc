// `inferlab optimize`, end to end through the binary: the --log text and
// --json log, --verbose node names, -o files that ONNX Runtime loads and
// that compute the zoo reference outputs, level 3's file no larger than level
// 2's (the native-only layout left out), and usage errors for bad flags.
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

// `optimize MODEL --opt-level LEVEL -o FILE`: the written file's node count,
// checked against the count the JSON log reports.
int64_t written_nodes(const std::string& model, int level, const std::string& dir) {
  const std::string file = dir + "/level" + std::to_string(level) + ".onnx";
  const std::string json = dir + "/level" + std::to_string(level) + ".json";
  const CommandResult made = run_cli("optimize " + model + " --opt-level " + std::to_string(level) +
                                     " -o " + file + " --json " + json);
  EXPECT_EQ(made.exit_code, 0) << made.stderr_text;
  if (made.exit_code != 0) return -1;
  const int64_t nodes = static_cast<int64_t>(model::import_model_file(file).graph->nodes.size());
  EXPECT_EQ(nlohmann::json::parse(read_file(json)).at("output_nodes").get<int64_t>(), nodes);
  return nodes;
}

int64_t count_op_in_file(const std::string& path, const std::string& op) {
  int64_t count = 0;
  // A range-for over a temporary's member would outlive the temporary.
  const model::Model model = model::import_model_file(path);
  for (const model::Node& node : model.graph->nodes)
    count += node.op_type == op && node.domain.empty() ? 1 : 0;
  return count;
}

// The channels-last layout is InferLab's own; written out it would be a
// Transpose pair around every convolution, so level 3's file skips it.
void check_level3_file_is_no_larger(const std::string& model, const std::string& label) {
  const std::string dir = make_temp_dir("cli-optimize-levels");
  const int64_t level2 = written_nodes(model, 2, dir);
  const int64_t level3 = written_nodes(model, 3, dir);
  std::printf("%s: written nodes level 2 %lld, level 3 %lld\n", label.c_str(),
              static_cast<long long>(level2), static_cast<long long>(level3));
  EXPECT_GT(level3, 0) << label;
  EXPECT_LE(level3, level2) << label;
  EXPECT_LE(count_op_in_file(dir + "/level3.onnx", "Transpose"),
            count_op_in_file(model, "Transpose"))
      << label << ": the file adds Transposes";
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCommand, Level3FileOfAConvChainHasNoMoreNodesThanLevel2) {
  const std::string dir = make_temp_dir("cli-optimize-chain");
  const std::string path = dir + "/chain.onnx";
  run_python(dir, R"(
import numpy as np
from onnx import helper, numpy_helper, TensorProto
rng = np.random.default_rng(0)
def weight(name, *shape):
    return numpy_helper.from_array(rng.uniform(-1, 1, shape).astype(np.float32), name)
nodes = [helper.make_node('Conv', ['x', 'w0', 'b0'], ['c0'], pads=[1, 1, 1, 1]),
         helper.make_node('Relu', ['c0'], ['r0']),
         helper.make_node('Conv', ['r0', 'w1'], ['c1'], pads=[1, 1, 1, 1]),
         helper.make_node('Add', ['c1', 'r0'], ['s']),
         helper.make_node('Relu', ['s'], ['r1']),
         helper.make_node('GlobalAveragePool', ['r1'], ['g']),
         helper.make_node('Flatten', ['g'], ['y'])]
graph = helper.make_graph(nodes, 'chain',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 8])],
    [weight('w0', 8, 3, 3, 3), weight('b0', 8), weight('w1', 8, 8, 3, 3)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])
model.ir_version = 8
open(')" + path + R"(', 'wb').write(model.SerializeToString())
)");
  check_level3_file_is_no_larger(path, "conv chain");
  const CommandResult made = run_cli("optimize " + path + " -o " + dir + "/out.onnx --json -");
  ASSERT_EQ(made.exit_code, 0) << made.stderr_text;
  const nlohmann::json log = nlohmann::json::parse(made.stdout_text);
  EXPECT_EQ(log.at("level"), 3);
  EXPECT_EQ(log.at("output_skipped_passes"), nlohmann::json::array({"channels_last_layout"}));
  // The log still describes level 3 for InferLab's engine, layout included.
  bool layout_logged = false;
  for (const nlohmann::json& entry : log.at("passes"))
    layout_logged = layout_logged || entry.at("pass") == "channels_last_layout";
  EXPECT_TRUE(layout_logged) << log.dump();
  const CommandResult text = run_cli("optimize " + path + " -o " + dir + "/out.onnx");
  EXPECT_TRUE(contains(text.stdout_text, "without the native-only channels_last_layout"))
      << text.stdout_text;
  std::filesystem::remove_all(dir);
}

TEST(OptimizeCommand, Resnet50Level3FileHasNoMoreNodesThanLevel2) {
  const std::string path = zoo_model("resnet50_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  check_level3_file_is_no_larger(path, "resnet50");
}

TEST(OptimizeCommand, EncoderLevel3FileHasNoMoreNodesThanLevel2) {
  const std::string path = zoo_model("encoder_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  check_level3_file_is_no_larger(path, "encoder");
}

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
