// Encoding KServe v2 responses: JSON data that decodes back to the same
// values, binary outputs after the JSON with the header length, the id
// echoed, and error bodies that survive invalid UTF-8.
#include "inferlab/serve/protocol/infer_response.h"

#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "inferlab/core/error.h"

namespace inferlab::serve {
namespace {

using nlohmann::json;

TEST(InferResponse, JsonOutputsCarryDatatypeShapeAndExactValues) {
  const Tensor y = Tensor::from_vector<float>({0.1f, -2.5f, 1e-30f, 3.0f}, {2, 2});
  const Tensor k = Tensor::from_vector<int64_t>({-9000000000, 7}, {2});
  const EncodedResponse response =
      encode_infer_response("m", "1", "req-7", {{"y", y, false}, {"k", k, false}});
  EXPECT_FALSE(response.header_length.has_value());
  const json body = json::parse(response.body);
  EXPECT_EQ(body.at("model_name"), "m");
  EXPECT_EQ(body.at("model_version"), "1");
  EXPECT_EQ(body.at("id"), "req-7");
  const json& first = body.at("outputs").at(0);
  EXPECT_EQ(first.at("name"), "y");
  EXPECT_EQ(first.at("datatype"), "FP32");
  EXPECT_EQ(first.at("shape"), json({2, 2}));
  // Read back as float, every value is the one sent.
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(first.at("data").at(i).get<float>(), static_cast<const float*>(y.raw_data())[i]);
  }
  EXPECT_EQ(body.at("outputs").at(1).at("data"), json({-9000000000, 7}));
}

TEST(InferResponse, BinaryOutputsFollowTheJsonInOrder) {
  const Tensor a = Tensor::from_vector<float>({1.0f, 2.0f}, {2});
  const Tensor b = Tensor::from_vector<int32_t>({5}, {1});
  const Tensor c = Tensor::from_vector<uint8_t>({9, 8, 7}, {3});
  const EncodedResponse response =
      encode_infer_response("m", "2", "", {{"a", a, true}, {"b", b, false}, {"c", c, true}});
  ASSERT_TRUE(response.header_length.has_value());
  const size_t header = *response.header_length;
  ASSERT_EQ(response.body.size(), header + 8 + 3);
  const json body = json::parse(response.body.substr(0, header));
  EXPECT_FALSE(body.contains("id"));
  EXPECT_EQ(body.at("outputs").at(0).at("parameters").at("binary_data_size"), 8);
  EXPECT_FALSE(body.at("outputs").at(0).contains("data"));
  EXPECT_EQ(body.at("outputs").at(1).at("data"), json({5}));
  float floats[2];
  std::memcpy(floats, response.body.data() + header, 8);
  EXPECT_EQ(floats[0], 1.0f);
  EXPECT_EQ(floats[1], 2.0f);
  EXPECT_EQ(response.body.substr(header + 8), std::string("\x09\x08\x07", 3));
}

TEST(InferResponse, AnEmptyBinaryOutputStillUsesTheFraming) {
  const Tensor empty(DataType::kFloat32, Shape({0, 4}));
  const EncodedResponse response = encode_infer_response("m", "1", "", {{"e", empty, true}});
  ASSERT_TRUE(response.header_length.has_value());
  EXPECT_EQ(*response.header_length, response.body.size());
}

TEST(InferResponse, StringOutputsAreRefusedByName) {
  const Tensor text(DataType::kString, Shape({1}));
  try {
    encode_infer_response("m", "1", "", {{"words", text, false}});
    FAIL() << "a string output was encoded";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(error.what()).find("'words'"), std::string::npos);
  }
}

TEST(InferResponse, ErrorBodiesAreJsonEvenForInvalidUtf8) {
  EXPECT_EQ(json::parse(encode_error("model 'x' is not ready")).at("error"),
            "model 'x' is not ready");
  const json replaced = json::parse(encode_error("input '\xff\xfe' is unknown"));
  EXPECT_NE(replaced.at("error").get<std::string>().find("is unknown"), std::string::npos);
}

}  // namespace
}  // namespace inferlab::serve
