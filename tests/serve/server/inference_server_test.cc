// The server as a KServe client sees it, through curl: every endpoint with
// JSON and binary bodies, the statuses of errors, and explicit model
// control.
#include "inferlab/serve/server/inference_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "serve/server/server_fixture.h"

namespace inferlab::serve {
namespace {

class InferenceServerTest : public ServerFixture {};

TEST_F(InferenceServerTest, HealthAndMetadataEndpoints) {
  add_onnx_model("add");
  start();
  Answer server = get("/v2");
  ASSERT_EQ(server.status, 200);
  EXPECT_EQ(server.json()["name"], "inferlab");
  for (const char* extension : {"binary_tensor_data", "model_repository", "model_configuration",
                                "statistics", "schedule_policy"}) {
    EXPECT_NE(server.body.find(extension), std::string::npos) << extension;
  }
  EXPECT_EQ(get("/v2/health/live").json(), nlohmann::json({{"live", true}}));
  EXPECT_EQ(get("/v2/health/ready").json(), nlohmann::json({{"ready", true}}));
  const nlohmann::json metadata = get("/v2/models/add").json();
  EXPECT_EQ(metadata["versions"], nlohmann::json({"1"}));
  EXPECT_EQ(metadata["inputs"][0],
            nlohmann::json({{"name", "x"}, {"datatype", "FP32"}, {"shape", {3, 4, 5}}}));
  EXPECT_EQ(metadata["outputs"][0]["name"], "sum");
  EXPECT_EQ(get("/v2/models/add/versions/1/ready").status, 200);
  EXPECT_EQ(get("/v2/models/add/versions/2/ready").status, 400);
  const nlohmann::json config = get("/v2/models/add/config").json();
  EXPECT_EQ(config["backend"], "native");
  EXPECT_EQ(config["input"][0]["data_type"], "TYPE_FP32");
  EXPECT_EQ(config["instance_group"][0]["count"], 1);
  const nlohmann::json index = post("/v2/repository/index").json();
  ASSERT_EQ(index.size(), 1u);
  EXPECT_EQ(index[0]["state"], "READY");
}

TEST_F(InferenceServerTest, InferWithJsonEchoesTheIdAndCountsStatistics) {
  add_onnx_model("add");
  start();
  const Answer answer = post("/v2/models/add/infer", add_request_json("request-7"));
  ASSERT_EQ(answer.status, 200) << answer.body;
  const nlohmann::json body = answer.json();
  EXPECT_EQ(body["id"], "request-7");
  EXPECT_EQ(body["model_name"], "add");
  EXPECT_EQ(body["model_version"], "1");
  const nlohmann::json& sum = body["outputs"][0];
  EXPECT_EQ(sum["name"], "sum");
  EXPECT_EQ(sum["shape"], nlohmann::json({3, 4, 5}));
  for (int i = 0; i < 60; ++i) EXPECT_EQ(sum["data"][i].get<float>(), 3.0f * i);
  const nlohmann::json stats = get("/v2/models/add/stats").json()["model_stats"][0];
  EXPECT_EQ(stats["inference_stats"]["success"]["count"], 1);
  EXPECT_EQ(stats["inference_stats"]["compute_infer"]["count"], 1);
  EXPECT_GT(stats["inference_stats"]["success"]["ns"].get<uint64_t>(), 0u);
  EXPECT_EQ(stats["execution_count"], 1);
}

TEST_F(InferenceServerTest, InferWithBinaryTensorData) {
  add_onnx_model("add");
  start();
  const std::string header =
      R"({"inputs":[{"name":"x","shape":[3,4,5],"datatype":"FP32","parameters":{"binary_data_size":240}},)"
      R"({"name":"y","shape":[3,4,5],"datatype":"FP32","parameters":{"binary_data_size":240}}],)"
      R"("outputs":[{"name":"sum","parameters":{"binary_data":true}}]})";
  std::vector<float> values(120);
  for (int i = 0; i < 60; ++i) values[i] = values[60 + i] = 0.5f * i;
  std::string body = header;
  body.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  const Answer answer = post("/v2/models/add/infer", body,
                             {"Inference-Header-Content-Length: " + std::to_string(header.size()),
                              "Content-Type: application/octet-stream"});
  ASSERT_EQ(answer.status, 200) << answer.body;
  const auto at = answer.headers.find("Inference-Header-Content-Length: ");
  ASSERT_NE(at, std::string::npos) << answer.headers;
  const size_t json_length = std::stoul(answer.headers.substr(at + 33));
  const nlohmann::json json = nlohmann::json::parse(answer.body.substr(0, json_length));
  EXPECT_EQ(json["outputs"][0]["parameters"]["binary_data_size"], 240);
  ASSERT_EQ(answer.body.size(), json_length + 240);
  std::vector<float> sum(60);
  std::memcpy(sum.data(), answer.body.data() + json_length, 240);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(sum[i], 1.0f * i);
}

// A 384 KiB binary input (1x3x32x32x32 float) takes the transport's large-
// body path: read past the parser and decoded as a view into the body, which
// must stay alive until the engine is done. MaxPool 2x2x2, stride 1, checked
// against the same pooling computed here.
TEST_F(InferenceServerTest, InferWithALargeBinaryTensorReadPastTheParser) {
  add_onnx_model("pool", "", "test_maxpool_3d_default");
  start();
  constexpr int kSide = 32, kOut = 31, kChannels = 3;
  std::vector<float> x(static_cast<size_t>(kChannels) * kSide * kSide * kSide);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 10.0f;
  const std::string header = R"({"inputs":[{"name":"x","shape":[1,3,32,32,32],"datatype":"FP32",)"
                             R"("parameters":{"binary_data_size":)" +
                             std::to_string(x.size() * 4) +
                             R"(}}],"outputs":[{"name":"y","parameters":{"binary_data":true}}]})";
  std::string body = header;
  body.append(reinterpret_cast<const char*>(x.data()), x.size() * sizeof(float));
  const Answer answer = post("/v2/models/pool/infer", body,
                             {"Inference-Header-Content-Length: " + std::to_string(header.size()),
                              "Content-Type: application/octet-stream"});
  ASSERT_EQ(answer.status, 200) << answer.body.substr(0, 300);
  const auto at = answer.headers.find("Inference-Header-Content-Length: ");
  ASSERT_NE(at, std::string::npos) << answer.headers;
  const size_t json_length = std::stoul(answer.headers.substr(at + 33));
  const size_t outputs = static_cast<size_t>(kChannels) * kOut * kOut * kOut;
  ASSERT_EQ(answer.body.size(), json_length + outputs * 4);
  std::vector<float> y(outputs);
  std::memcpy(y.data(), answer.body.data() + json_length, outputs * 4);
  auto in = [&](int c, int d, int h, int w) {
    return x[((static_cast<size_t>(c) * kSide + d) * kSide + h) * kSide + w];
  };
  size_t wrong = 0;
  for (int c = 0; c < kChannels; ++c)
    for (int d = 0; d < kOut; ++d)
      for (int h = 0; h < kOut; ++h)
        for (int w = 0; w < kOut; ++w) {
          float expected = in(c, d, h, w);
          for (int k = 0; k < 8; ++k)
            expected = std::max(expected, in(c, d + (k >> 2), h + ((k >> 1) & 1), w + (k & 1)));
          const size_t index = ((static_cast<size_t>(c) * kOut + d) * kOut + h) * kOut + w;
          wrong += y[index] != expected;
        }
  EXPECT_EQ(wrong, 0u) << "of " << outputs << " outputs";
}

TEST_F(InferenceServerTest, ErrorsCarryTheirStatusAndAnErrorBody) {
  add_onnx_model("add");
  start();
  auto expect = [&](const Answer& answer, int status, const std::string& words) {
    EXPECT_EQ(answer.status, status) << answer.body;
    EXPECT_NE(answer.json().value("error", "").find(words), std::string::npos) << answer.body;
  };
  expect(get("/v2/nothing"), 404, "no such endpoint");
  expect(get("/v2/models/add/infer"), 405, "takes POST");
  expect(post("/v2/models/absent/infer", add_request_json()), 404, "'absent' is not loaded");
  expect(post("/v2/models/add/versions/0/infer", add_request_json()), 400, "version");
  expect(post("/v2/models/%2e%2e/infer", add_request_json()), 400, "..");
  expect(post("/v2/models/add/infer", "{not json"), 400, "JSON");
  std::string bad_shape = add_request_json();
  bad_shape.replace(bad_shape.find("[3,4,5]"), 7, "[4,3,5]");
  expect(post("/v2/models/add/infer", bad_shape), 400, "'x'");
  std::string with_output = add_request_json();
  with_output.insert(with_output.size() - 1, R"(,"outputs":[{"name":"product"}])");
  expect(post("/v2/models/add/infer", with_output), 400, "no output 'product'");
  expect(post("/v2/models/add/infer",
              R"({"inputs":[{"name":"x","shape":[1],"datatype":"BYTES","data":["a"]}]})"),
         501, "BYTES");
  expect(
      post("/v2/models/add/infer", add_request_json(), {"Inference-Header-Content-Length: 9999"}),
      400, "Inference-Header-Content-Length");
  expect(post("/v2/repository/models/add/unload"), 400, "--model-control-mode=explicit");
  EXPECT_EQ(get("/v2/models/add/ready").status, 200);  // nothing above hurt the model
}

TEST_F(InferenceServerTest, ExplicitModeLoadsAndUnloadsOnRequest) {
  add_onnx_model("add");
  add_onnx_model("other");
  ServerOptions options;
  options.mode = ModelControlMode::kExplicit;
  options.load_models = {"other"};
  start(options);
  EXPECT_EQ(post("/v2/models/add/infer", add_request_json()).status, 404);
  nlohmann::json index = post("/v2/repository/index").json();
  EXPECT_EQ(index[0], nlohmann::json({{"name", "add"}}));  // never loaded: no state
  ASSERT_EQ(post("/v2/repository/models/add/load").status, 200);
  EXPECT_EQ(post("/v2/models/add/infer", add_request_json()).status, 200);
  ASSERT_EQ(
      post("/v2/repository/models/add/unload", R"({"parameters":{"unload_dependents":false}})")
          .status,
      200);
  EXPECT_EQ(post("/v2/models/add/infer", add_request_json()).status, 404);
  index = post("/v2/repository/index").json();
  EXPECT_EQ(index[0]["state"], "UNAVAILABLE");
  EXPECT_EQ(index[0]["reason"], "unloaded");
  EXPECT_EQ(post("/v2/repository/index", R"({"ready":true})").json().size(), 1u);  // "other"
  EXPECT_EQ(post("/v2/repository/models/absent/load").status, 404);
  EXPECT_EQ(post("/v2/repository/models/add/load", R"({"parameters":{"config":"{}"}})").status,
            501);
}

TEST_F(InferenceServerTest, AnInvalidConfigNamesItsFileAndStopsTheStart) {
  add_onnx_model("add", "name: \"add\"\ninput [ { name: \"x\" data_type: TYPE_INT64 } ]\n");
  try {
    start();
    FAIL() << "the server started";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("config.pbtxt"), std::string::npos) << message;
    EXPECT_NE(message.find("TYPE_INT64"), std::string::npos) << message;
  }
}

TEST_F(InferenceServerTest, ExitOnErrorFalseServesTheOtherModels) {
  add_onnx_model("add");
  add_onnx_model("broken", "name: \"broken\"\nbackend: \"tensorflow\"\n");
  ServerOptions options;
  options.exit_on_error = false;
  start(options);
  EXPECT_EQ(post("/v2/models/add/infer", add_request_json()).status, 200);
  EXPECT_EQ(get("/v2/health/ready").status, 400);  // strict readiness: one model failed
  EXPECT_EQ(get("/v2/health/ready").json(), nlohmann::json({{"ready", false}}));
}

}  // namespace
}  // namespace inferlab::serve
