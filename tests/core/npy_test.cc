// .npy files: round trip of every NumPy-representable type, files written by
// NumPy's conventions (v1 and v2 headers), and each malformed-file fault.
#include "inferlab/core/npy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace inferlab {
namespace {

std::string npy_bytes(const std::string& header, const std::string& data, int version = 1) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const size_t width = version == 1 ? 2 : 4;
  for (size_t i = 0; i < width; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

void expect_npy_error(const std::string& bytes, ErrorCode code, const std::string& fragment) {
  try {
    parse_npy(bytes, "bad.npy");
    ADD_FAILURE() << "accepted a malformed .npy (" << fragment << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("bad.npy: ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(Npy, RoundTripsEveryNumpyType) {
  const DataType types[] = {DataType::kFloat32, DataType::kFloat64, DataType::kInt8,
                            DataType::kInt16,   DataType::kInt32,   DataType::kInt64,
                            DataType::kUint8,   DataType::kUint16,  DataType::kUint32,
                            DataType::kUint64,  DataType::kBool,    DataType::kFloat16};
  for (DataType dtype : types) {
    for (const Shape& shape : {Shape{}, Shape{5}, Shape{2, 3}, Shape{0, 4}}) {
      Tensor tensor(dtype, shape);
      auto* bytes = static_cast<uint8_t*>(tensor.raw_data());
      for (size_t i = 0; i < tensor.nbytes(); ++i) {
        bytes[i] = dtype == DataType::kBool ? i % 2 : static_cast<uint8_t>(i * 37 + 11);
      }
      const std::string file = serialize_npy(tensor);
      EXPECT_EQ((file.size() - tensor.nbytes()) % 64, 0u) << "data must start 64-byte aligned";
      const Tensor back = parse_npy(file, "t.npy");
      EXPECT_TRUE(back.equals(tensor)) << dtype_name(dtype) << shape_to_string(shape);
    }
  }
}

TEST(Npy, WritesAndReadsFiles) {
  const std::string dir = inferlab::testing::make_temp_dir("inferlab-npy");
  const Tensor tensor = Tensor::from_vector<int64_t>({1, -2, 3}, {3});
  write_npy(dir + "/a.npy", tensor);
  EXPECT_TRUE(read_npy(dir + "/a.npy").equals(tensor));
  EXPECT_THROW(read_npy(dir + "/missing.npy"), Error);
  std::filesystem::remove_all(dir);
}

TEST(Npy, ReadsVersion2HeaderAndNumpySpacing) {
  const float values[2] = {1.0f, 2.0f};
  const std::string data(reinterpret_cast<const char*>(values), sizeof values);
  const Tensor tensor = parse_npy(
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", data, 2), "v2.npy");
  EXPECT_EQ(tensor.shape(), (Shape{2}));
  EXPECT_EQ(tensor.data<float>()[1], 2.0f);
}

TEST(Npy, RejectsBfloat16AndStrings) {
  EXPECT_THROW(serialize_npy(Tensor(DataType::kBFloat16, {2})), Error);
  EXPECT_THROW(serialize_npy(Tensor(DataType::kString, {2})), Error);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::string data(8, '\0');
  expect_npy_error("not numpy at all", ErrorCode::kInvalidArgument, "bad magic");
  expect_npy_error(npy_bytes(header, data).substr(0, 20), ErrorCode::kInvalidArgument,
                   "truncated .npy header");
  expect_npy_error(npy_bytes("{'descr': '<f4', 'shape': (2,)}", data), ErrorCode::kInvalidArgument,
                   "malformed .npy header");
  expect_npy_error(npy_bytes("{'descr': '<f4' 'fortran_order': False}", data),
                   ErrorCode::kInvalidArgument, "malformed .npy header");
  expect_npy_error(npy_bytes(header, data.substr(0, 7)), ErrorCode::kInvalidArgument,
                   "needs 8 data bytes, the file has 7");
  expect_npy_error(npy_bytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data),
                   ErrorCode::kUnsupported, "big-endian");
  expect_npy_error(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data),
                   ErrorCode::kUnsupported, "Fortran-order");
  expect_npy_error(npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data),
                   ErrorCode::kUnsupported, "unsupported .npy dtype '<c8'");
  expect_npy_error(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data),
                   ErrorCode::kInvalidArgument, "shape must be a tuple");
  expect_npy_error(
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
                data),
      ErrorCode::kLimitExceeded, "bad.npy");
}

}  // namespace
}  // namespace inferlab
