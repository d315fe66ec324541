// `inferlab load` end to end: against the server's HTTP transport on
// 127.0.0.1 port 0 with a handler that checks every request as an OIP
// server would (path, method, framing, a body that decodes to the seeded
// inputs) and answers 200 or chosen errors; in process on a one-Add ONNX
// model; and its command line. Every run is bounded by --requests.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include <nlohmann/json.hpp>

#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_range.h"
#include "test_util.h"
#ifdef INFERLAB_TEST_WITH_SERVE
#include "inferlab/serve/http/http_server.h"
#include "inferlab/serve/protocol/infer_request.h"
#endif

namespace inferlab::testing {
namespace {

CommandResult load(const std::string& arguments) {
  return run_command(cli_path() + " load " + arguments);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(LoadCommand, HelpShowsTheFlagsAndAnExample) {
  const CommandResult result = load("--help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_TRUE(contains(result.stdout_text, "--concurrency")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stdout_text, "--in-process"));
  EXPECT_TRUE(contains(result.stdout_text, "inferlab load http://127.0.0.1:8000"));
}

TEST(LoadCommand, UsageErrorsExitTwoWithAClearMessage) {
  CommandResult result = load("--bogus");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.stderr_text, "--bogus")) << result.stderr_text;
  result = load("http://127.0.0.1:1 --model m --concurrency 2 --rate 10");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.stderr_text, "excludes")) << result.stderr_text;
  result = load("--requests 3");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.stderr_text, "give a server URL or --in-process"))
      << result.stderr_text;
  result = load("http://127.0.0.1:1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.stderr_text, "--model NAME is required")) << result.stderr_text;
}

TEST(LoadCommand, AnUnreachableServerIsAnErrorNamingIt) {
  // Port 1 on loopback: nothing listens there in a test environment.
  const CommandResult result = load("http://127.0.0.1:1 --model m --timeout 5");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stderr_text, "GET http://127.0.0.1:1/v2/models/m: connect"))
      << result.stderr_text;
}

TEST(LoadCommand, InProcessRunsTheModelFromEachThread) {
  const std::string model = "/usr/share/libonnx-testdata/data/node/test_add/model.onnx";
  const CommandResult result = load("--in-process " + model +
                                    " --requests 30 --warmup 0 --concurrency 3 --instances 2 "
                                    "--threads 1 --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(report["result"]["requests"], 30);
  EXPECT_EQ(report["result"]["successes"], 30);
  EXPECT_EQ(report["result"]["senders"], 3);
  EXPECT_EQ(report["instances"], 2);
  EXPECT_EQ(report["threads_per_instance"], 1);
  EXPECT_EQ(report["inputs"].size(), 2u);
  EXPECT_TRUE(report["in_process"].get<bool>());
  EXPECT_TRUE(contains(report["command_line"].get<std::string>(), "--in-process"));
  EXPECT_TRUE(report["result"]["latency_ms"]["p50"].is_number());
}

#ifdef INFERLAB_TEST_WITH_SERVE

// An OIP model "add" with input x FP32[-1, 4], served on port 0.
class FakeServer {
 public:
  explicit FakeServer(int fail_every = 0)
      : fail_every_(fail_every),
        server_("127.0.0.1", 0, [this](serve::HttpRequest request, serve::Responder respond) {
          respond(handle(request));
        }) {}
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
  int infers() const { return infers_.load(); }
  int rejected() const { return rejected_.load(); }
  Tensor last_x() {
    std::lock_guard lock(mutex_);
    return last_x_;
  }
  std::string last_body() {
    std::lock_guard lock(mutex_);
    return last_body_;
  }

 private:
  serve::HttpResponse handle(const serve::HttpRequest& request) {
    if (request.method == "GET" && request.target == "/v2/models/add") {
      return {200,
              "application/json",
              {},
              R"({"name":"add","versions":["1"],"platform":"onnxruntime_onnx","inputs":)"
              R"([{"name":"x","datatype":"FP32","shape":[-1,4]}],"outputs":)"
              R"([{"name":"y","datatype":"FP32","shape":[-1,4]}]})"};
    }
    if (request.method != "POST" || request.target != "/v2/models/add/infer") {
      ++rejected_;
      return {404, "application/json", {}, R"({"error":"unknown path"})"};
    }
    const std::string length = request.header("Inference-Header-Content-Length");
    try {
      serve::InferRequest decoded = serve::decode_infer_request(
          request.body, length.empty() ? std::nullopt : std::optional<size_t>(std::stoul(length)));
      std::lock_guard lock(mutex_);
      last_x_ = decoded.inputs.at("x");
      last_body_ = request.body;
    } catch (const std::exception& error) {
      ++rejected_;
      return {400, "application/json", {}, nlohmann::json{{"error", error.what()}}.dump()};
    }
    const int number = ++infers_;
    if (fail_every_ > 0 && number % fail_every_ == 0)
      return {503, "application/json", {}, R"({"error":"queue full"})"};
    return {200, "application/json", {}, R"({"model_name":"add","outputs":[]})"};
  }

  int fail_every_;
  std::atomic<int> infers_{0};
  std::atomic<int> rejected_{0};
  std::mutex mutex_;
  Tensor last_x_;
  std::string last_body_;
  serve::HttpServer server_;  // last: stopped before the state it uses goes
};

nlohmann::json load_json(const std::string& arguments, int expected_exit = 0) {
  const CommandResult result = load(arguments + " --json -");
  EXPECT_EQ(result.exit_code, expected_exit) << result.stderr_text;
  if (result.exit_code != 0) return nullptr;
  return nlohmann::json::parse(result.stdout_text);
}

TEST(LoadCommand, ClosedLoopCountsEveryRequestOnKeptAliveConnections) {
  FakeServer server;
  const nlohmann::json report = load_json(server.url() +
                                          " --model add --shape x=2,4 --requests 40 --warmup 0 "
                                          "--concurrency 3");
  ASSERT_TRUE(report.is_object());
  const nlohmann::json& result = report["result"];
  EXPECT_EQ(result["requests"], 40);
  EXPECT_EQ(result["successes"], 40);
  EXPECT_TRUE(result["errors"].empty());
  EXPECT_EQ(result["connections_opened"], 3);  // one per client, kept alive
  EXPECT_EQ(server.infers(), 40);
  EXPECT_EQ(server.rejected(), 0);
  EXPECT_EQ(result["throughput"]["samples_per_request"], 2);
  EXPECT_EQ(report["body"]["format"], "binary");
  EXPECT_EQ(report["target"], server.url() + "/v2/models/add/infer");
}

TEST(LoadCommand, ErrorStatusesAreCountedNotDropped) {
  FakeServer server(4);
  const nlohmann::json report =
      load_json(server.url() + " --model add --requests 40 --warmup 0 --concurrency 2");
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["result"]["requests"], 40);
  EXPECT_EQ(report["result"]["successes"], 30);
  EXPECT_EQ(report["result"]["errors"]["503"], 10);
  EXPECT_TRUE(contains(report["result"]["error_details"]["503"].get<std::string>(), "queue full"));
}

TEST(LoadCommand, NoSuccessExitsOne) {
  FakeServer server(1);
  const CommandResult result = load(server.url() + " --model add --requests 5 --warmup 0");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stdout_text, "503: 5")) << result.stdout_text;
  EXPECT_TRUE(contains(result.stderr_text, "no request succeeded")) << result.stderr_text;
}

TEST(LoadCommand, JsonAndBinaryBodiesCarryTheSeededInputs) {
  model::ValueInfo x{"x", DataType::kFloat32, true, {model::Dim::fixed(3), model::Dim::fixed(4)}};
  const Tensor expected =
      inputs::random_tensor(x, Shape{3, 4}, inputs::default_range(DataType::kFloat32), 7);
  for (const char* body : {"json", "binary"}) {
    FakeServer server;
    load_json(server.url() + " --model add --shape x=3,4 --seed 7 --requests 1 --warmup 0 --body " +
              body);
    const Tensor got = server.last_x();
    ASSERT_EQ(got.shape(), expected.shape()) << body;
    EXPECT_EQ(std::memcmp(got.raw_data(), expected.raw_data(), expected.nbytes()), 0) << body;
  }
}

TEST(LoadCommand, SaveBodyWritesTheBytesItSends) {
  FakeServer server;
  const std::string dir = make_temp_dir("load-save-body");
  const CommandResult saved =
      load(server.url() + " --model add --shape x=2,4 --save-body " + dir + "/body.bin");
  ASSERT_EQ(saved.exit_code, 0) << saved.stderr_text;
  EXPECT_EQ(server.infers(), 0);
  load_json(server.url() + " --model add --shape x=2,4 --requests 1 --warmup 0");
  EXPECT_EQ(read_file(dir + "/body.bin"), server.last_body());
  const std::string headers = read_file(dir + "/body.bin.headers");
  EXPECT_TRUE(contains(headers, "Content-Type: application/octet-stream\n")) << headers;
  EXPECT_TRUE(contains(headers, "Inference-Header-Content-Length: ")) << headers;
}

TEST(LoadCommand, OpenLoopSendsTheScheduledRequests) {
  FakeServer server;
  const nlohmann::json report = load_json(
      server.url() + " --model add --rate 200 --connections 4 --requests 20 --warmup 0.05");
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["result"]["requests"], 20);
  EXPECT_EQ(report["result"]["successes"], 20);
  EXPECT_EQ(server.infers(), 30);  // 10 scheduled inside the 50 ms warm-up, then 20
  EXPECT_TRUE(report["result"]["send_lag_ms"]["max"].is_number());
  EXPECT_EQ(report["settings"]["rate"], 200.0);
}

#endif  // INFERLAB_TEST_WITH_SERVE

}  // namespace
}  // namespace inferlab::testing
