// Decoding KServe v2 inference requests: JSON tensors (flat and nested),
// Triton's binary framing, and a clear error naming the field for every
// malformed or oversized request.
#include "inferlab/serve/protocol/infer_request.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/error.h"
#include "inferlab/core/float16.h"

namespace inferlab::serve {
namespace {

// The error a decode throws: its code and message.
Error decode_error(std::string_view body, std::optional<size_t> header_length = std::nullopt,
                   const RequestLimits& limits = {}) {
  try {
    decode_infer_request(body, header_length, limits);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "decoded without an error: " << body;
  return Error(ErrorCode::kRuntime, "");
}

// The code a one-input request with this datatype, shape and data fails with.
ErrorCode one_input_error(const std::string& datatype, const std::string& shape,
                          const std::string& data) {
  return decode_error(R"({"inputs": [{"name": "x", "shape": )" + shape + R"(, "datatype": ")" +
                      datatype + R"(", "data": )" + data + "}]}")
      .code();
}

template <typename T>
std::vector<T> values(const Tensor& tensor) {
  const T* data = static_cast<const T*>(tensor.raw_data());
  return std::vector<T>(data, data + tensor.numel());
}

TEST(InferRequest, DecodesFlatAndNestedJsonData) {
  const InferRequest request = decode_infer_request(R"({
    "id": "r1",
    "inputs": [
      {"name": "x", "shape": [2, 2], "datatype": "FP32", "data": [1.5, 2, -3, 4e2]},
      {"name": "n", "shape": [2, 3], "datatype": "INT64", "data": [[1, 2, 3], [4, 5, -6]]},
      {"name": "b", "shape": [3], "datatype": "BOOL", "data": [true, false, true]},
      {"name": "h", "shape": [1], "datatype": "FP16", "data": 0.5}
    ]})",
                                                    std::nullopt);
  EXPECT_EQ(request.id, "r1");
  ASSERT_EQ(request.inputs.size(), 4u);
  const Tensor& x = request.inputs.at("x");
  EXPECT_EQ(x.dtype(), DataType::kFloat32);
  EXPECT_EQ(x.shape(), Shape({2, 2}));
  EXPECT_EQ(values<float>(x), (std::vector<float>{1.5f, 2.0f, -3.0f, 400.0f}));
  EXPECT_EQ(values<int64_t>(request.inputs.at("n")), (std::vector<int64_t>{1, 2, 3, 4, 5, -6}));
  EXPECT_EQ(values<bool>(request.inputs.at("b")), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(static_cast<const Float16*>(request.inputs.at("h").raw_data())->to_float(), 0.5f);
  EXPECT_TRUE(request.outputs.empty());
  EXPECT_FALSE(request.binary_data_output);
}

TEST(InferRequest, BinaryTensorsFollowTheJsonInInputOrder) {
  const std::vector<float> x = {1.0f, -2.0f, 3.5f};
  const std::vector<int32_t> y = {7, 8};
  const std::string json = R"({"inputs": [
      {"name": "x", "shape": [3], "datatype": "FP32", "parameters": {"binary_data_size": 12}},
      {"name": "j", "shape": [1], "datatype": "INT8", "data": [-5]},
      {"name": "y", "shape": [1, 2], "datatype": "INT32", "parameters": {"binary_data_size": 8}}],
    "outputs": [{"name": "out", "parameters": {"binary_data": false}}, {"name": "other"}],
    "parameters": {"binary_data_output": true, "priority": 2, "timeout": 5000}})";
  std::string body = json;
  body.append(reinterpret_cast<const char*>(x.data()), 12);
  body.append(reinterpret_cast<const char*>(y.data()), 8);
  const InferRequest request = decode_infer_request(body, json.size());
  EXPECT_EQ(values<float>(request.inputs.at("x")), x);
  EXPECT_EQ(values<int32_t>(request.inputs.at("y")), y);
  EXPECT_EQ(values<int8_t>(request.inputs.at("j")), std::vector<int8_t>{-5});
  ASSERT_EQ(request.outputs.size(), 2u);
  EXPECT_FALSE(wants_binary(request, "out"));   // its own parameter wins
  EXPECT_TRUE(wants_binary(request, "other"));  // the request's default
  EXPECT_EQ(request.priority, 2);
  EXPECT_EQ(request.timeout_us, 5000);
  EXPECT_EQ(request.parameters.at("priority"), 2);
}

// With the body's owner, an aligned binary tensor points into the body and
// keeps it alive; a misaligned one, or one decoded without an owner, is a copy.
TEST(InferRequest, AlignedBinaryTensorsAreViewsIntoTheBodyTheyKeepAlive) {
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::string json = R"({"inputs": [{"name": "x", "shape": [4], "datatype": "FP32",)"
                           R"( "parameters": {"binary_data_size": 16}}]})";
  for (const size_t shift : {size_t{0}, size_t{1}}) {
    // The binary part starts 64-byte aligned, or one byte past that.
    auto memory = std::shared_ptr<char[]>(new char[384]);
    char* start = memory.get() + 192 - json.size() + shift;
    start -= reinterpret_cast<uintptr_t>(start + json.size() - shift) % 64;
    std::memcpy(start, json.data(), json.size());
    std::memcpy(start + json.size(), x.data(), 16);
    const std::string_view body(start, json.size() + 16);
    std::weak_ptr<char[]> watch = memory;
    std::shared_ptr<void> owner = std::move(memory);
    InferRequest request = decode_infer_request(body, json.size(), {}, owner);
    owner.reset();
    const Tensor& tensor = request.inputs.at("x");
    EXPECT_EQ(values<float>(tensor), x) << "shift " << shift;
    const bool view = tensor.raw_data() == start + json.size();
    EXPECT_EQ(view, shift == 0) << "shift " << shift;
    EXPECT_EQ(watch.expired(), shift != 0) << "a view keeps the body, a copy does not";
    request.inputs.clear();
    EXPECT_TRUE(watch.expired());
  }
  const std::string body = json + std::string(reinterpret_cast<const char*>(x.data()), 16);
  const InferRequest copied = decode_infer_request(body, json.size());
  EXPECT_NE(copied.inputs.at("x").raw_data(), body.data() + json.size());
  EXPECT_EQ(values<float>(copied.inputs.at("x")), x);
}

TEST(InferRequest, BytesAndUnknownDatatypesAreRefusedByName) {
  const Error bytes = decode_error(
      R"({"inputs": [{"name": "text", "shape": [1], "datatype": "BYTES", "data": ["a"]}]})");
  EXPECT_EQ(bytes.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(bytes.what()).find("'text'"), std::string::npos) << bytes.what();
  EXPECT_NE(std::string(bytes.what()).find("BYTES"), std::string::npos);
  const Error unknown = decode_error(
      R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FLOAT", "data": [1]}]})");
  EXPECT_EQ(unknown.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(unknown.what()).find("'FLOAT'"), std::string::npos) << unknown.what();
}

TEST(InferRequest, ShapesMustBeNonNegativeAndBounded) {
  EXPECT_EQ(one_input_error("FP32", "[2, -1]", R"([1, 2])"), ErrorCode::kInvalidArgument);
  // The product overflows int64: refused before anything is allocated.
  const Error huge = decode_error(
      R"({"inputs": [{"name": "x", "shape": [4294967296, 4294967296, 16], "datatype": "FP32",
                      "data": [1]}]})");
  EXPECT_EQ(huge.code(), ErrorCode::kLimitExceeded);
  EXPECT_NE(std::string(huge.what()).find("'x'"), std::string::npos);
  RequestLimits small;
  small.max_elements = 8;
  EXPECT_EQ(decode_error(R"({"inputs": [{"name": "x", "shape": [3, 3], "datatype": "FP32",
                                         "parameters": {"binary_data_size": 36}}]})",
                         std::nullopt, small)
                .code(),
            ErrorCode::kLimitExceeded);
}

TEST(InferRequest, DataMustMatchTheShapeAndTheType) {
  const Error few = decode_error(
      R"({"inputs": [{"name": "x", "shape": [3], "datatype": "FP32", "data": [1, 2]}]})");
  EXPECT_NE(std::string(few.what()).find("has 2 values, but shape [3] holds 3"), std::string::npos)
      << few.what();
  EXPECT_EQ(one_input_error("FP32", "[1]", R"([1, 2])"), ErrorCode::kInvalidArgument);
  EXPECT_EQ(one_input_error("INT8", "[1]", R"([200])"), ErrorCode::kInvalidArgument);
  EXPECT_EQ(one_input_error("INT32", "[1]", R"([1.5])"), ErrorCode::kInvalidArgument);
  EXPECT_EQ(one_input_error("UINT8", "[1]", R"([-1])"), ErrorCode::kInvalidArgument);
  EXPECT_EQ(one_input_error("BOOL", "[1]", R"([1])"), ErrorCode::kInvalidArgument);
  EXPECT_EQ(one_input_error("FP32", "[1]", R"(["1"])"), ErrorCode::kInvalidArgument);
}

TEST(InferRequest, BinaryFramingIsCheckedAgainstTheBody) {
  const std::string json =
      R"({"inputs": [{"name": "x", "shape": [2], "datatype": "FP32",
                      "parameters": {"binary_data_size": 8}}]})";
  // The header claims more than the body has.
  EXPECT_EQ(decode_error(json, json.size() + 1).code(), ErrorCode::kInvalidArgument);
  // Too few binary bytes, then too many.
  EXPECT_NE(std::string(decode_error(json + "1234", json.size()).what()).find("only 4 bytes"),
            std::string::npos);
  EXPECT_NE(std::string(decode_error(json + "123456789", json.size()).what()).find("add up to 8"),
            std::string::npos);
  // A size that disagrees with datatype and shape.
  const std::string wrong =
      R"({"inputs": [{"name": "x", "shape": [2], "datatype": "FP32",
                      "parameters": {"binary_data_size": 4}}]})";
  EXPECT_EQ(decode_error(wrong + "1234", wrong.size()).code(), ErrorCode::kInvalidArgument);
  // Both data and binary, and neither.
  EXPECT_EQ(decode_error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32",
                                         "data": [1], "parameters": {"binary_data_size": 4}}]})")
                .code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32"}]})").code(),
            ErrorCode::kInvalidArgument);
}

TEST(InferRequest, DuplicateNamesAreRefused) {
  const Error inputs = decode_error(R"({"inputs": [
      {"name": "x", "shape": [1], "datatype": "FP32", "data": [1]},
      {"name": "x", "shape": [1], "datatype": "FP32", "data": [2]}]})");
  EXPECT_NE(std::string(inputs.what()).find("input 'x' appears twice"), std::string::npos);
  const Error outputs = decode_error(R"({"inputs": [
      {"name": "x", "shape": [1], "datatype": "FP32", "data": [1]}],
      "outputs": [{"name": "y"}, {"name": "y"}]})");
  EXPECT_NE(std::string(outputs.what()).find("output 'y' is requested twice"), std::string::npos);
}

TEST(InferRequest, MalformedAndDeepJsonGetClearErrors) {
  EXPECT_EQ(decode_error("{\"inputs\": [").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error("[1, 2]").code(), ErrorCode::kInvalidArgument);
  // A number beyond a double's range: nlohmann throws out_of_range, not a
  // parse error (fuzz_infer_request's first find).
  EXPECT_EQ(decode_error("11111111111111111111111E111111111111").code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error(R"({"inputs": []})").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error(R"({"inputs": [{"shape": [1], "datatype": "FP32", "data": [1]}]})").code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error(R"({"id": 5, "inputs": [{"name": "x", "shape": [1],
                                                  "datatype": "FP32", "data": [1]}]})")
                .code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(decode_error(R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32",
                                         "data": [1]}], "parameters": {"priority": -1}})")
                .code(),
            ErrorCode::kInvalidArgument);
  // 10,000 nested arrays: refused at the depth limit, not by exhausting the stack.
  const std::string deep =
      R"({"inputs": [{"name": "x", "shape": [1], "datatype": "FP32", "data": )" +
      std::string(10000, '[') + "1" + std::string(10000, ']') + "}]}";
  EXPECT_EQ(decode_error(deep).code(), ErrorCode::kLimitExceeded);
}

TEST(InferRequest, LimitsBoundTheNumberOfTensorsAndNameLengths) {
  RequestLimits limits;
  limits.max_tensors = 1;
  limits.max_name_bytes = 4;
  EXPECT_EQ(decode_error(R"({"inputs": [
      {"name": "a", "shape": [1], "datatype": "FP32", "data": [1]},
      {"name": "b", "shape": [1], "datatype": "FP32", "data": [1]}]})",
                         std::nullopt, limits)
                .code(),
            ErrorCode::kLimitExceeded);
  EXPECT_EQ(decode_error(R"({"inputs": [{"name": "longer", "shape": [1], "datatype": "FP32",
                                         "data": [1]}]})",
                         std::nullopt, limits)
                .code(),
            ErrorCode::kLimitExceeded);
}

}  // namespace
}  // namespace inferlab::serve
