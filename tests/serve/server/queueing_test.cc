// Queueing and lifecycle on a model whose instance the test holds busy (the
// gated python fixture): a full queue answers 503 (or 429 with
// Retry-After), a queue timeout 504 while the instance is still busy, a
// client that hangs up leaves the queue, a killed worker fails only its
// request and comes back, and a drain answers everything it accepted.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "serve/loopback_client.h"
#include "serve/server/server_fixture.h"

namespace inferlab::serve {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSmallQueue = R"(name: "gated"
dynamic_batching {
  default_queue_policy { max_queue_size: 1 allow_timeout_override: true }
}
)";

class QueueingTest : public ServerFixture {
 protected:
  void start_gated(ServerOptions options = {}) {
    gate_ = add_gated_model("gated", kSmallQueue);
    start(options);
  }
  // A request in the background; the instance takes the first one.
  std::future<Answer> infer_async(const std::string& parameters = "{}") {
    return std::async(std::launch::async, [this, parameters] {
      return post("/v2/models/gated/infer", gated_request_json(parameters));
    });
  }
  size_t queued() { return server_->models().find("gated", 0)->scheduler().queued(); }
  bool wait_queued(size_t count) {
    return eventually([&] { return queued() == count; });
  }
  struct Filled {
    std::future<Answer> running;
    std::future<Answer> queued;
  };
  // One request holds the instance and another fills the queue (bound 1).
  Filled fill_queue() {
    Filled filled{infer_async(), {}};
    EXPECT_TRUE(wait_for_file(gate_ + ".started.1"));
    filled.queued = infer_async();
    EXPECT_TRUE(wait_queued(1));
    return filled;
  }
  void open_gate() { fs::remove(gate_); }
  std::string gate_;
};

TEST_F(QueueingTest, BeyondTheBoundARequestIsRefusedAtOnce) {
  start_gated();
  Filled filled = fill_queue();
  ASSERT_FALSE(HasFailure());
  const Answer refused = post("/v2/models/gated/infer", gated_request_json());
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("queue is full"), std::string::npos) << refused.body;
  open_gate();
  const Answer first = filled.running.get(), second = filled.queued.get();
  EXPECT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(first.json()["outputs"][0]["data"], nlohmann::json({2.0, 3.0, 4.0, 5.0}));
}

TEST_F(QueueingTest, TooManyRequestsWithRetryAfterWhenConfigured) {
  ServerOptions options;
  options.infer.queue_full_status = 429;
  options.infer.retry_after_seconds = 3;
  start_gated(options);
  Filled filled = fill_queue();
  ASSERT_FALSE(HasFailure());
  const Answer refused = post("/v2/models/gated/infer", gated_request_json());
  EXPECT_EQ(refused.status, 429);
  EXPECT_NE(refused.headers.find("Retry-After: 3"), std::string::npos) << refused.headers;
  open_gate();
  EXPECT_EQ(filled.running.get().status, 200);
  EXPECT_EQ(filled.queued.get().status, 200);
}

TEST_F(QueueingTest, AQueueTimeoutIsAnsweredWhileTheInstanceIsBusy) {
  start_gated();
  std::future<Answer> running = infer_async();
  ASSERT_TRUE(wait_for_file(gate_ + ".started.1"));
  const Answer timed_out =
      post("/v2/models/gated/infer", gated_request_json(R"({"timeout":50000})"));
  EXPECT_EQ(timed_out.status, 504) << timed_out.body;
  EXPECT_TRUE(fs::exists(gate_));  // answered by the timer: the instance never freed up
  open_gate();
  EXPECT_EQ(running.get().status, 200);
  const nlohmann::json stats = get("/v2/models/gated/stats").json()["model_stats"][0];
  EXPECT_EQ(stats["inference_stats"]["fail"]["count"], 1);
  EXPECT_EQ(stats["inference_stats"]["success"]["count"], 1);
}

TEST_F(QueueingTest, AClientThatHangsUpLeavesTheQueue) {
  start_gated();
  std::future<Answer> running = infer_async();
  ASSERT_TRUE(wait_for_file(gate_ + ".started.1"));
  {
    Client client(server_->http_port());
    client.send_all(serve::post("/v2/models/gated/infer", gated_request_json(), false));
    ASSERT_TRUE(wait_queued(1));
  }  // closed without reading
  EXPECT_TRUE(wait_queued(0));
  open_gate();
  EXPECT_EQ(running.get().status, 200);
  // Only the first request ran: the hung-up one never reached the model.
  EXPECT_FALSE(fs::exists(gate_ + ".started.2"));
}

std::vector<pid_t> python_children() {
  std::vector<pid_t> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string pid, comm, state;
    pid_t parent = 0;
    if (!(stat >> pid >> comm >> state >> parent) || parent != getpid()) continue;
    const std::string command = testing::read_file((entry.path() / "cmdline").string());
    if (command.find("python") != std::string::npos) found.push_back(std::stoi(pid));
  }
  return found;
}

TEST_F(QueueingTest, AKilledWorkerFailsItsRequestAndIsRestarted) {
  start_gated();
  std::future<Answer> running = infer_async();
  ASSERT_TRUE(wait_for_file(gate_ + ".started.1"));
  const std::vector<pid_t> workers = python_children();
  ASSERT_EQ(workers.size(), 1u);
  kill(workers[0], SIGKILL);
  const Answer failed = running.get();
  EXPECT_EQ(failed.status, 503);
  EXPECT_NE(failed.body.find("restarting"), std::string::npos) << failed.body;
  open_gate();
  // Not ready until the worker is back, then serving again.
  ASSERT_TRUE(eventually([&] { return get("/v2/models/gated/ready").status == 200; }));
  EXPECT_EQ(post("/v2/models/gated/infer", gated_request_json()).status, 200);
  EXPECT_NE(log_text_.str().find("is back"), std::string::npos) << log_text_.str();
}

TEST_F(QueueingTest, ADrainAnswersWhatItAcceptedAndRefusesTheRest) {
  start_gated();
  std::future<Answer> running = infer_async();
  ASSERT_TRUE(wait_for_file(gate_ + ".started.1"));
  std::future<Answer> queued_request = infer_async();
  ASSERT_TRUE(wait_queued(1));
  std::future<bool> drained = std::async(std::launch::async, [this] { return server_->drain(); });
  eventually([&] { return !server_->ready(); });
  EXPECT_EQ(get("/v2/health/ready").json(), nlohmann::json({{"ready", false}}));
  const Answer refused = post("/v2/models/gated/infer", gated_request_json());
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("shutting down"), std::string::npos);
  open_gate();
  EXPECT_TRUE(drained.get());
  EXPECT_EQ(running.get().status, 200);
  EXPECT_EQ(queued_request.get().status, 200);
}

TEST_F(QueueingTest, AReloadLetsTheRequestInFlightFinishOnItsVersion) {
  ServerOptions options;
  options.mode = ModelControlMode::kExplicit;
  options.load_models = {"gated"};
  start_gated(options);
  std::future<Answer> running = infer_async();
  ASSERT_TRUE(wait_for_file(gate_ + ".started.1"));
  std::future<Answer> reload =
      std::async(std::launch::async, [this] { return post("/v2/repository/models/gated/load"); });
  // The new version serves as soon as it is open; the old one still holds
  // the first request, and the reload answers once that one is done.
  ASSERT_TRUE(eventually([&] {
    return log_text_.str().find("replacing the versions") != std::string::npos;
  })) << log_text_.str();
  EXPECT_EQ(reload.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  open_gate();
  EXPECT_EQ(running.get().status, 200);
  EXPECT_EQ(reload.get().status, 200);
  EXPECT_EQ(post("/v2/models/gated/infer", gated_request_json()).status, 200);
}

class PollTest : public ServerFixture {};

TEST_F(PollTest, APollLoadsNewVersionsAndUnloadsWhatDisappeared) {
  add_onnx_model("add");
  ServerOptions options;
  options.mode = ModelControlMode::kPoll;
  options.poll_seconds = 0.1;
  start(options);
  EXPECT_EQ(get("/v2/models/add").json()["versions"], nlohmann::json({"1"}));
  fs::create_directories(repository_ / "add" / "2");
  fs::copy_file(repository_ / "add" / "1" / "model.onnx", repository_ / "add" / "2" / "model.onnx");
  ASSERT_TRUE(eventually([&] {
    return get("/v2/models/add").json().value("versions", nlohmann::json()) ==
           nlohmann::json({"2"});
  }));
  EXPECT_EQ(post("/v2/models/add/versions/2/infer", add_request_json()).status, 200);
  fs::remove_all(repository_ / "add");
  EXPECT_TRUE(eventually([&] { return get("/v2/models/add/ready").status == 400; }));
  EXPECT_EQ(post("/v2/models/add/infer", add_request_json()).status, 404);
}

}  // namespace
}  // namespace inferlab::serve
