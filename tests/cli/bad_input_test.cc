// Bad input to the CLI: broken model files, bad input files and flags, and
// unsupported operators each end with a clear message and exit status 1
// (2 for usage errors), never a signal.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_support.h"
#include "inferlab/core/npy.h"

namespace inferlab::testing {
namespace {

class CliBadInput : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = make_temp_dir("cli-bad"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs and checks the exit status and that stderr holds every part.
  void expect_failure(const std::string& arguments, int exit_code,
                      const std::vector<std::string>& parts) {
    const CommandResult result = run_cli(arguments);
    EXPECT_EQ(result.signal, 0) << arguments;
    EXPECT_EQ(result.exit_code, exit_code) << arguments << "\n" << result.stderr_text;
    EXPECT_FALSE(result.stderr_text.empty()) << arguments;
    if (exit_code == 1) {
      EXPECT_TRUE(contains(result.stderr_text, "error: ")) << result.stderr_text;
    }
    for (const std::string& part : parts) {
      EXPECT_TRUE(contains(result.stderr_text, part))
          << "'" << part << "' not in: " << result.stderr_text;
    }
  }

  std::string add_model() const { return node_model("test_add"); }
  std::string dir_;
};

TEST_F(CliBadInput, TruncatedModel) {
  const std::string path = dir_ + "/truncated.onnx";
  write_file(path, read_file(add_model()).substr(0, 60));
  expect_failure("run " + path, 1, {"truncated.onnx", "not a valid ONNX model"});
  expect_failure("inspect " + path, 1, {"truncated.onnx"});
}

TEST_F(CliBadInput, EmptyModel) {
  const std::string path = dir_ + "/empty.onnx";
  write_file(path, "");
  expect_failure("run " + path, 1, {"empty.onnx", "empty"});
}

TEST_F(CliBadInput, RandomBytesModel) {
  const std::string path = dir_ + "/random.onnx";
  std::string bytes;
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes.push_back(static_cast<char>(state >> 24));
  }
  write_file(path, bytes);
  expect_failure("run " + path, 1, {"random.onnx"});
  expect_failure("inspect " + path, 1, {"random.onnx"});
}

TEST_F(CliBadInput, MissingModelFile) {
  expect_failure("run " + dir_ + "/nothing.onnx", 1, {"nothing.onnx"});
}

TEST_F(CliBadInput, MissingInputFile) {
  expect_failure("run " + add_model() + " --input x=" + dir_ + "/absent.npy", 1, {"absent.npy"});
}

TEST_F(CliBadInput, InputWithWrongName) {
  const std::string path = dir_ + "/z.npy";
  write_npy(path, Tensor(DataType::kFloat32, {3, 4, 5}));
  expect_failure("run " + add_model() + " --input z=" + path, 1, {"'z'", "not an input"});
}

TEST_F(CliBadInput, InputWithWrongDtype) {
  const std::string path = dir_ + "/x.npy";
  write_npy(path, Tensor(DataType::kInt64, {3, 4, 5}));
  expect_failure("run " + add_model() + " --input x=" + path, 1,
                 {"input 'x'", "the model expects float", "int64"});
}

TEST_F(CliBadInput, InputWithWrongShape) {
  const std::string path = dir_ + "/x.npy";
  write_npy(path, Tensor(DataType::kFloat32, {3, 4}));
  expect_failure("run " + add_model() + " --input x=" + path, 1,
                 {"input 'x'", "has shape [3, 4]", "expects [3, 4, 5]"});
  write_npy(path, Tensor(DataType::kFloat32, {3, 4, 6}));
  expect_failure("run " + add_model() + " --input x=" + path, 1,
                 {"input 'x'", "has shape [3, 4, 6]"});
}

TEST_F(CliBadInput, MalformedNpy) {
  const std::string path = dir_ + "/broken.npy";
  write_file(path, std::string("\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'", 24));
  expect_failure("run " + add_model() + " --input x=" + path, 1, {"broken.npy"});
}

TEST_F(CliBadInput, MalformedShapeIsAUsageError) {
  expect_failure("run " + add_model() + " --shape x=1,a", 2, {"--shape x", "'1,a'"});
  expect_failure("inspect " + add_model() + " --shape x", 2, {"--shape", "NAME=VALUE"});
}

TEST_F(CliBadInput, MalformedFlagsAreUsageErrors) {
  expect_failure("run " + add_model() + " --input x", 2, {"--input"});
  expect_failure("run " + add_model() + " --value x=abc", 2, {"--value x", "not a number"});
  expect_failure("run " + add_model() + " --input-range x=5:1", 2, {"--input-range x"});
  expect_failure("run " + add_model() + " --no-such-flag", 2, {});
  expect_failure("", 2, {});
}

TEST_F(CliBadInput, UnsupportedOperatorsOfEveryDomainAreListedTogether) {
  const std::string model = make_unsupported_op_model(dir_);
  expect_failure("run " + model, 1,
                 {"3 unsupported operators: Foo (opset 13, nodes 'foo1', 'foo2'), "
                  "com.microsoft.FusedConv (node 'fused1'), custom.domain.Bar (node 'bar1')"});
}

}  // namespace
}  // namespace inferlab::testing
