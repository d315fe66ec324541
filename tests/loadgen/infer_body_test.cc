// Request bodies byte for byte: the JSON and binary forms of the same
// tensors, the datatype names, and metadata read into declared inputs. With
// the server part built, both bodies are also decoded by the server's own
// decoder and must give back the very bytes that went in.
#include "inferlab/loadgen/infer_body.h"

#include <gtest/gtest.h>

#include <cstring>

#include "inferlab/core/error.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"
#ifdef INFERLAB_TEST_WITH_SERVE
#include "inferlab/serve/protocol/infer_request.h"
#endif

namespace inferlab::loadgen {
namespace {

NamedTensors two_inputs() {
  Tensor x(DataType::kFloat32, Shape{1, 2});
  x.data<float>()[0] = 0.5f;
  x.data<float>()[1] = 0.1f;
  Tensor y(DataType::kInt64, Shape{2});
  y.data<int64_t>()[0] = 3;
  y.data<int64_t>()[1] = -4;
  return {{"x", x}, {"y", y}};
}

TEST(InferBody, JsonCarriesShortestNumbers) {
  const InferBody body = encode_infer_body(two_inputs(), BodyFormat::kJson);
  EXPECT_EQ(body.bytes,
            R"({"inputs":[{"name":"x","shape":[1,2],"datatype":"FP32","data":[0.5,0.1]},)"
            R"({"name":"y","shape":[2],"datatype":"INT64","data":[3,-4]}]})");
  EXPECT_EQ(body.header_length, 0u);
  EXPECT_EQ(body.content_type, "application/json");
  EXPECT_EQ(body.extra_headers(), "");
}

TEST(InferBody, BinaryIsAJsonHeaderThenRawBytesInInputOrder) {
  const NamedTensors inputs = two_inputs();
  const InferBody body = encode_infer_body(inputs, BodyFormat::kBinary);
  const std::string header =
      R"({"inputs":[{"name":"x","shape":[1,2],"datatype":"FP32","parameters":{"binary_data_size":8}},)"
      R"({"name":"y","shape":[2],"datatype":"INT64","parameters":{"binary_data_size":16}}],)"
      R"("parameters":{"binary_data_output":true}})";
  ASSERT_EQ(body.header_length, header.size());
  EXPECT_EQ(body.bytes.substr(0, header.size()), header);
  ASSERT_EQ(body.bytes.size(), header.size() + 8 + 16);
  EXPECT_EQ(std::memcmp(body.bytes.data() + header.size(), inputs[0].second.raw_data(), 8), 0);
  EXPECT_EQ(std::memcmp(body.bytes.data() + header.size() + 8, inputs[1].second.raw_data(), 16), 0);
  EXPECT_EQ(body.content_type, "application/octet-stream");
  EXPECT_EQ(body.extra_headers(),
            "Inference-Header-Content-Length: " + std::to_string(header.size()) + "\r\n");
}

TEST(InferBody, DatatypeNamesRoundTripAndBytesIsRefused) {
  for (const char* name : {"BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32",
                           "INT64", "FP16", "FP32", "FP64", "BF16"})
    EXPECT_EQ(kserve_datatype(dtype_from_kserve(name)), name);
  EXPECT_THROW(dtype_from_kserve("BYTES"), Error);
  EXPECT_THROW(dtype_from_kserve("FLOAT"), Error);
  EXPECT_THROW(kserve_datatype(DataType::kString), Error);
}

TEST(InferBody, PathsEncodeNamesAndVersions) {
  EXPECT_EQ(infer_path("resnet", ""), "/v2/models/resnet/infer");
  EXPECT_EQ(infer_path("a b/c", "2"), "/v2/models/a%20b%2Fc/versions/2/infer");
  EXPECT_EQ(model_path("m", "3"), "/v2/models/m/versions/3");
}

TEST(InferBody, MetadataGivesDeclaredInputsWithDynamicDims) {
  const nlohmann::json metadata = nlohmann::json::parse(
      R"({"name":"m","versions":["1"],"platform":"onnx","inputs":[{"name":"x","datatype":"FP32",)"
      R"("shape":[-1,3,-1]}],"outputs":[]})");
  const std::vector<model::ValueInfo> inputs = inputs_from_metadata(metadata);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].dtype, DataType::kFloat32);
  ASSERT_EQ(inputs[0].dims.size(), 3u);
  EXPECT_FALSE(inputs[0].dims[0].is_static());
  EXPECT_EQ(inputs[0].dims[1].value, 3);
  // The leading dynamic dim is the batch (1); any other needs --shape.
  EXPECT_THROW(inputs::resolve_input_shape(inputs[0], {}), Error);
  EXPECT_EQ(inputs::resolve_input_shape(inputs[0], {{"x", Shape{2, 3, 5}}}), (Shape{2, 3, 5}));
  EXPECT_THROW(inputs_from_metadata(nlohmann::json::parse(R"({"inputs":[{"name":"x"}]})")), Error);
  EXPECT_THROW(inputs_from_metadata(nlohmann::json::parse(R"({"name":"m"})")), Error);
}

#ifdef INFERLAB_TEST_WITH_SERVE
TEST(InferBody, TheServerDecodesBothFormsToTheSameBytes) {
  model::ValueInfo declared{
      "x", DataType::kFloat32, true, {model::Dim::fixed(3), model::Dim::fixed(7)}};
  const Tensor x = inputs::random_tensor(declared, Shape{3, 7}, {-2.0, 2.0}, 11);
  model::ValueInfo flags{"flags", DataType::kBool, true, {model::Dim::fixed(5)}};
  const Tensor f = inputs::random_tensor(flags, Shape{5}, {0, 1}, 11);
  const NamedTensors tensors = {{"x", x}, {"flags", f}};
  for (BodyFormat format : {BodyFormat::kJson, BodyFormat::kBinary}) {
    const InferBody body = encode_infer_body(tensors, format);
    const serve::InferRequest request = serve::decode_infer_request(
        body.bytes,
        body.header_length > 0 ? std::optional<size_t>(body.header_length) : std::nullopt);
    EXPECT_EQ(request.binary_data_output, format == BodyFormat::kBinary);
    for (const auto& [name, sent] : tensors) {
      const Tensor& got = request.inputs.at(name);
      ASSERT_EQ(got.dtype(), sent.dtype()) << name;
      ASSERT_EQ(got.shape(), sent.shape()) << name;
      EXPECT_EQ(std::memcmp(got.raw_data(), sent.raw_data(), sent.nbytes()), 0)
          << name << " in " << body_format_name(format);
    }
  }
}
#endif

}  // namespace
}  // namespace inferlab::loadgen
