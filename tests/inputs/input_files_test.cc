// Inputs in files: what --save-inputs writes, `bench --inputs` reads back;
// the layouts of a sample directory; .npy and .pb sniffing.
#include "inferlab/inputs/input_files.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/core/error.h"
#include "inferlab/core/npy.h"
#include "input_test_support.h"
#include "test_util.h"

namespace inferlab::inputs {
namespace {

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::make_temp_dir("inputs-files"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(InputFiles, WrittenInputsAreReadBackAsOneSample) {
  const std::vector<model::ValueInfo> inputs = {declared("ids", DataType::kInt64, {3}),
                                                declared("past/key:0", DataType::kFloat32, {2})};
  backends::TensorMap written;
  written["ids"] = Tensor::from_vector<int64_t>({1, 2, 3}, {3});
  written["past/key:0"] = Tensor::from_vector<float>({0.5f, 1.5f}, {2});
  write_input_files(dir_ + "/saved", written);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/saved/past_key_0.npy"));
  const std::vector<backends::TensorMap> samples = samples_from_directory(dir_ + "/saved", inputs);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_TRUE(samples[0].at("ids").equals(written["ids"]));
  EXPECT_TRUE(samples[0].at("past/key:0").equals(written["past/key:0"]));
}

TEST_F(InputFiles, OneInputModelTakesEveryNpyAsASampleInNameOrder) {
  const std::vector<model::ValueInfo> inputs = {declared("x", DataType::kFloat32, {1})};
  write_npy(dir_ + "/b.npy", Tensor::from_vector<float>({2.0f}, {1}));
  write_npy(dir_ + "/a.npy", Tensor::from_vector<float>({1.0f}, {1}));
  const std::vector<backends::TensorMap> samples = samples_from_directory(dir_, inputs);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].at("x").data<float>()[0], 1.0f);
  EXPECT_EQ(samples[1].at("x").data<float>()[0], 2.0f);
}

TEST_F(InputFiles, SubdirectoriesAreSamplesOfAManyInputModel) {
  const std::vector<model::ValueInfo> inputs = {declared("a", DataType::kFloat32, {1}),
                                                declared("b", DataType::kFloat32, {1})};
  for (const char* sample : {"s1", "s2"}) {
    write_input_files(dir_ + "/" + sample, {{"a", Tensor::from_vector<float>({1.0f}, {1})},
                                            {"b", Tensor::from_vector<float>({2.0f}, {1})}});
  }
  EXPECT_EQ(samples_from_directory(dir_, inputs).size(), 2u);
  std::filesystem::remove(dir_ + "/s2/b.npy");
  EXPECT_THROW(samples_from_directory(dir_, inputs), Error);  // names the missing file
}

TEST_F(InputFiles, EmptyDirectoryIsAnErrorNamingIt) {
  try {
    samples_from_directory(dir_, {declared("x", DataType::kFloat32, {1})});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("--inputs " + dir_ + " holds no samples"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(InputFiles, NpyIsRecognisedWithoutItsExtension) {
  const Tensor tensor = Tensor::from_vector<float>({1.0f, 2.0f}, {2});
  write_npy(dir_ + "/tensor.bin", tensor);
  EXPECT_TRUE(read_tensor_file(dir_ + "/tensor.bin").equals(tensor));
}

}  // namespace
}  // namespace inferlab::inputs
