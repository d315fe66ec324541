// `inferlab run`: given, filled and random inputs, --output-dir files, JSON,
// shapes for symbolic dims.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_test_support.h"
#include "inferlab/core/npy.h"
#include "inferlab/model/tensor_file.h"

namespace inferlab::testing {
namespace {

TEST(CliRun, RunsTestAddOnItsDataAndWritesTheOutputAsNpy) {
  const std::string dir = make_temp_dir("cli-run");
  const std::string data = kNodeData + "/test_add/test_data_set_0/";
  const CommandResult result =
      run_cli("run " + node_model("test_add") + " --input x=" + data +
              "input_0.pb --input y=" + data + "input_1.pb --output-dir " + dir + "/out");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(contains(result.stdout_text, "sum: float[3,4,5]")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stdout_text, "run time:")) << result.stdout_text;
  const Tensor written = read_npy(dir + "/out/sum.npy");
  const Tensor expected = model::read_tensor_pb(data + "output_0.pb");
  EXPECT_EQ(written.shape(), expected.shape());
  EXPECT_LE(relative_error(written, expected), 1e-6);
  std::filesystem::remove_all(dir);
}

TEST(CliRun, RandomInputsAreFixedBySeed) {
  const std::string dir = make_temp_dir("cli-seed");
  for (const std::string run : {"a", "b"}) {
    const CommandResult result =
        run_cli("run " + node_model("test_add") + " --output-dir " + dir + "/" + run);
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  }
  const CommandResult other =
      run_cli("run " + node_model("test_add") + " --seed 7 --output-dir " + dir + "/c");
  ASSERT_EQ(other.exit_code, 0) << other.stderr_text;
  const Tensor a = read_npy(dir + "/a/sum.npy");
  EXPECT_TRUE(a.equals(read_npy(dir + "/b/sum.npy")));
  EXPECT_FALSE(a.equals(read_npy(dir + "/c/sum.npy")));
  // Uniform [0,1) inputs: their sum lies in [0,2).
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_GE(a.data<float>()[i], 0.0f);
    EXPECT_LT(a.data<float>()[i], 2.0f);
  }
  std::filesystem::remove_all(dir);
}

TEST(CliRun, ValueAndRangeFlagsSetTheInputs) {
  const CommandResult result =
      run_cli("run " + node_model("test_add") + " --value x=1.5 --input-range y=10:11 --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(result.stdout_text);
  const nlohmann::json& sum = report["outputs"][0];
  EXPECT_EQ(sum["name"], "sum");
  EXPECT_GE(sum["min"].get<double>(), 11.5);
  EXPECT_LT(sum["max"].get<double>(), 12.5);
  EXPECT_EQ(report["inputs"][0]["source"], "value 1.5");
}

TEST(CliRun, LeadingSymbolicDimDefaultsToOneOthersNeedShape) {
  const std::string dir = make_temp_dir("cli-symbolic");
  const std::string model = make_symbolic_image_model(dir);
  const CommandResult missing = run_cli("run " + model);
  EXPECT_EQ(missing.exit_code, 1);
  // Numbers where they are known (1 for the leading batch dim), the dim's name
  // as a placeholder where one is needed, and all of it on one line.
  EXPECT_TRUE(contains(missing.stderr_text,
                       "input 'x': dimensions 2 ('height') and 3 ('width') are symbolic; give the "
                       "full shape with --shape x=1,3,<height>,<width>\n"))
      << missing.stderr_text;
  EXPECT_FALSE(contains(missing.stderr_text, "x=batch")) << missing.stderr_text;
  const CommandResult given = run_cli("run " + model + " --shape x=1,3,4,5 --json -");
  ASSERT_EQ(given.exit_code, 0) << given.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(given.stdout_text);
  EXPECT_EQ(report["outputs"][0]["shape"], nlohmann::json({1, 3, 4, 5}));
  std::filesystem::remove_all(dir);
}

// Paddle2ONNX-style symbols and an unnamed dim: the hint still puts numbers
// where they are known and a placeholder where one is needed.
TEST(CliRun, SymbolicDimHintShowsNumbersAndPlaceholders) {
  const std::string dir = make_temp_dir("cli-symbolic-hint");
  const std::string model = dir + "/p2o.onnx";
  run_python(dir, R"(
from onnx import helper, TensorProto
graph = helper.make_graph([helper.make_node('Relu', ['x'], ['y'], name='relu'),
                           helper.make_node('Relu', ['z'], ['w'], name='relu2')], 'g',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT,
                                   ['p2o.DynamicDimension.0', 3, 'p2o.DynamicDimension.1', 8]),
     helper.make_tensor_value_info('z', TensorProto.FLOAT, [2, None])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['n', 3, 'h', 8]),
     helper.make_tensor_value_info('w', TensorProto.FLOAT, [2, None])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
open(')" + model + R"(', 'wb').write(model.SerializeToString())
)");
  const CommandResult named = run_cli("run " + model);
  EXPECT_EQ(named.exit_code, 1);
  EXPECT_TRUE(contains(named.stderr_text,
                       "input 'x': dimension 2 ('p2o.DynamicDimension.1') is symbolic; give the "
                       "full shape with --shape x=1,3,<p2o.DynamicDimension.1>,8\n"))
      << named.stderr_text;
  const CommandResult unnamed = run_cli("run " + model + " --shape x=1,3,4,8");
  EXPECT_EQ(unnamed.exit_code, 1);
  EXPECT_TRUE(contains(unnamed.stderr_text,
                       "input 'z': dimension 1 is symbolic; give the full shape with --shape "
                       "z=2,<dim1>\n"))
      << unnamed.stderr_text;
  std::filesystem::remove_all(dir);
}

TEST(CliRun, HelpExitsZero) {
  for (const std::string arguments : {"--help", "run --help", "inspect --help"}) {
    const CommandResult result = run_cli(arguments);
    EXPECT_EQ(result.exit_code, 0) << arguments;
    EXPECT_TRUE(contains(result.stdout_text, "Usage")) << result.stdout_text;
  }
}

}  // namespace
}  // namespace inferlab::testing
