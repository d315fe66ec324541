// TensorProto .pb files: round trip of every element type, typed-field
// files written by the ONNX library, and malformed files.
#include "inferlab/model/tensor_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "onnx_test_models.h"
#include "test_util.h"

namespace inferlab::model {
namespace {

using inferlab::testing::expect_error;

// A 2x3 tensor of `dtype` whose elements differ from each other.
Tensor sample_tensor(DataType dtype) {
  Tensor tensor(dtype, {2, 3});
  visit_any_dtype(dtype, "sample", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = tensor.data<T>();
    for (int i = 0; i < 6; ++i) {
      if constexpr (std::is_same_v<T, std::string>)
        data[i] = "s" + std::to_string(i);
      else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        data[i] = T::from_float(static_cast<float>(i) - 2.5f);
      else if constexpr (std::is_same_v<T, bool>)
        data[i] = i % 2 == 1;
      else
        data[i] = static_cast<T>(i * 7 + 1);
    }
  });
  return tensor;
}

const DataType kAllTypes[] = {DataType::kFloat32,  DataType::kFloat64, DataType::kInt8,
                              DataType::kInt16,    DataType::kInt32,   DataType::kInt64,
                              DataType::kUint8,    DataType::kUint16,  DataType::kUint32,
                              DataType::kUint64,   DataType::kBool,    DataType::kFloat16,
                              DataType::kBFloat16, DataType::kString};

class TensorFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = inferlab::testing::make_temp_dir("inferlab-pb"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(TensorFile, RoundTripsEveryDataType) {
  for (DataType dtype : kAllTypes) {
    const Tensor tensor = sample_tensor(dtype);
    const std::string path = dir_ + "/t.pb";
    write_tensor_pb(path, tensor, "value");
    std::string name;
    const Tensor back = read_tensor_pb(path, &name);
    EXPECT_TRUE(back.equals(tensor)) << dtype_name(dtype);
    EXPECT_EQ(name, "value");
  }
}

TEST_F(TensorFile, ReadsTypedFieldsForSmallTypes) {
  onnx::TensorProto proto;
  proto.set_data_type(onnx::TensorProto::FLOAT16);
  proto.add_dims(2);
  proto.add_int32_data(Float16::from_float(1.5f).bits);
  proto.add_int32_data(Float16::from_float(-2.0f).bits);
  const std::string path = dir_ + "/half.pb";
  inferlab::testing::write_file(path, proto.SerializeAsString());
  const Tensor tensor = read_tensor_pb(path);
  EXPECT_EQ(tensor.data<Float16>()[0].to_float(), 1.5f);
  EXPECT_EQ(tensor.data<Float16>()[1].to_float(), -2.0f);
}

TEST_F(TensorFile, ReadsOnnxTestData) {
  const Tensor tensor = read_tensor_pb(
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/test_data_set_0/"
      "input_0.pb");
  EXPECT_EQ(tensor.dtype(), DataType::kFloat32);
  EXPECT_EQ(tensor.shape(), (Shape{1, 1, 7, 5}));
}

TEST_F(TensorFile, RejectsCorruptAndOversizedFiles) {
  const std::string path = dir_ + "/t.pb";
  write_tensor_pb(path, sample_tensor(DataType::kFloat32));
  const std::string bytes = inferlab::testing::read_file(path);
  const std::string cut = dir_ + "/cut.pb";
  inferlab::testing::write_file(cut, bytes.substr(0, bytes.size() - 5));
  expect_error([&] { read_tensor_pb(cut); }, ErrorCode::kInvalidArgument,
               {cut, "truncated or corrupt"});
  expect_error([&] { read_tensor_pb(path, nullptr, 8); }, ErrorCode::kLimitExceeded,
               {path, "max_tensor_bytes = 8"});
  expect_error([&] { read_tensor_pb(dir_ + "/none.pb"); }, ErrorCode::kNotFound, {"none.pb"});
}

}  // namespace
}  // namespace inferlab::model
