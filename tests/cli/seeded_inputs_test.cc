// `run`, `bench` and `profile` make their random inputs with one library
// (src/inferlab/inputs/): for the same model and seed, `run --save-inputs`
// and `bench --save-inputs` write byte-identical .npy files, in the range the
// manifest gives (or --input-range), and another seed gives other bytes.
#include <filesystem>

#include "cli_test_support.h"
#include "inferlab/core/npy.h"

namespace inferlab::testing {
namespace {

// A model directory: x float[batch, 3] (no range: [0, 1)), ids int64[batch, 4]
// with the manifest range [5, 9), mask bool[batch, 4]; each cast to a float output.
std::string make_three_input_model(const std::string& dir) {
  run_python(dir, R"(
from onnx import helper, TensorProto
nodes = [helper.make_node('Relu', ['x'], ['y'], name='relu'),
         helper.make_node('Cast', ['ids'], ['ids_f'], name='cast_ids', to=TensorProto.FLOAT),
         helper.make_node('Cast', ['mask'], ['mask_f'], name='cast_mask', to=TensorProto.FLOAT)]
graph = helper.make_graph(nodes, 'g',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['batch', 3]),
     helper.make_tensor_value_info('ids', TensorProto.INT64, ['batch', 4]),
     helper.make_tensor_value_info('mask', TensorProto.BOOL, ['batch', 4])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['batch', 3]),
     helper.make_tensor_value_info('ids_f', TensorProto.FLOAT, ['batch', 4]),
     helper.make_tensor_value_info('mask_f', TensorProto.FLOAT, ['batch', 4])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
open(')" + dir + R"(/model.onnx', 'wb').write(model.SerializeToString())
)");
  write_file(dir + "/model.json", R"({"format": "inferlab-model", "version": 1, "name": "three",
  "artifacts": {"onnx": "model.onnx"},
  "inputs": [{"name": "x", "dtype": "float32", "shape": ["batch", 3]},
             {"name": "ids", "dtype": "int64", "shape": ["batch", 4], "range": [5, 9]},
             {"name": "mask", "dtype": "bool", "shape": ["batch", 4]}]})");
  return dir;
}

constexpr const char* kShortBench =
    " --backends native --reference native --rounds 1 --min-iterations 1 --min-round-ms 0"
    " --warmup-runs 1 --settle-ms 0 --json -";

class SeededInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = make_temp_dir("cli-seeded-inputs");
    model_ = make_three_input_model(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void run_saving(const std::string& flags, const std::string& to) {
    const CommandResult result =
        run_cli("run " + model_ + " " + flags + " --save-inputs " + dir_ + "/" + to);
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  }
  void bench_saving(const std::string& flags, const std::string& to) {
    const CommandResult result = run_cli("bench " + model_ + " " + flags + kShortBench +
                                         " --save-inputs " + dir_ + "/" + to);
    ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  }
  std::string saved(const std::string& to, const std::string& input) const {
    return read_file(dir_ + "/" + to + "/" + input + ".npy");
  }
  std::string dir_;
  std::string model_;
};

TEST_F(SeededInputs, RunAndBenchFeedByteIdenticalInputsForOneSeed) {
  run_saving("--seed 7", "run");
  bench_saving("--seed 7", "bench");
  for (const char* input : {"x", "ids", "mask"}) {
    EXPECT_FALSE(saved("run", input).empty()) << input;
    EXPECT_EQ(saved("run", input), saved("bench", input)) << input;
  }
  const std::vector<int64_t> ids = read_npy(dir_ + "/run/ids.npy").to_int64_vector();
  ASSERT_EQ(ids.size(), 4u);  // the symbolic batch dim is 1 in both
  for (int64_t id : ids) {
    EXPECT_GE(id, 5);  // the manifest's range
    EXPECT_LT(id, 9);
  }
  run_saving("--seed 8", "other");
  EXPECT_NE(saved("run", "x"), saved("other", "x"));
}

TEST_F(SeededInputs, InputRangeFlagOverridesTheManifestInRunAndBench) {
  run_saving("--seed 3 --input-range ids=100:102 --input-range x=-2:-1", "run");
  bench_saving("--seed 3 --input-range ids=100:102 --input-range x=-2:-1", "bench");
  for (const char* input : {"x", "ids", "mask"})
    EXPECT_EQ(saved("run", input), saved("bench", input)) << input;
  for (int64_t id : read_npy(dir_ + "/run/ids.npy").to_int64_vector()) {
    EXPECT_GE(id, 100);
    EXPECT_LT(id, 102);
  }
  const Tensor x = read_npy(dir_ + "/run/x.npy");
  for (int64_t i = 0; i < x.numel(); ++i) {
    EXPECT_GE(x.data<float>()[i], -2.0f);
    EXPECT_LT(x.data<float>()[i], -1.0f);
  }
}

TEST_F(SeededInputs, RangeForAnUnknownInputIsAnErrorNamingTheFlag) {
  const CommandResult result = run_cli("run " + model_ + " --input-range z=0:1");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stderr_text,
                       "--input-range: a range is given for 'z', which is not an input"))
      << result.stderr_text;
}

}  // namespace
}  // namespace inferlab::testing
