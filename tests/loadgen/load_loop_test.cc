// The loops over scripted channels: exact counts for a bounded number of
// requests, errors tallied and never dropped, the warm-up left out, and
// the open loop's latency counted from the schedule. Bounds on time are
// lower bounds that follow from the script (a channel that sleeps 20 ms
// cannot answer sooner), never thresholds on speed.
#include "inferlab/loadgen/load_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "inferlab/core/error.h"
#include "inferlab/loadgen/load_report.h"

namespace inferlab::loadgen {
namespace {

using namespace std::chrono_literals;

struct Script {
  std::atomic<int64_t> sent{0};
  std::atomic<int> channels{0};
  std::chrono::milliseconds sleep{0};
  int fail_every = 0;  // every Nth request (by arrival) answers 503
};

class ScriptedChannel : public Channel {
 public:
  explicit ScriptedChannel(Script& script) : script_(script) {}
  Outcome send() override {
    const int64_t number = ++script_.sent;
    if (script_.sleep.count() > 0) std::this_thread::sleep_for(script_.sleep);
    if (script_.fail_every > 0 && number % script_.fail_every == 0)
      return {false, "503", "overloaded"};
    return {};
  }

 private:
  Script& script_;
};

ChannelFactory scripted(Script& script) {
  return [&script](int) -> std::unique_ptr<Channel> {
    ++script.channels;
    return std::make_unique<ScriptedChannel>(script);
  };
}

LoadOptions bounded(int64_t requests) {
  LoadOptions options;
  options.warmup_s = 0;
  options.requests = requests;
  return options;
}

TEST(ClosedLoop, SendsExactlyTheRequestsAskedFor) {
  Script script;
  LoadOptions options = bounded(100);
  options.concurrency = 4;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(script.sent.load(), 100);
  EXPECT_EQ(script.channels.load(), 4);
  EXPECT_EQ(result.requests, 100);
  EXPECT_EQ(result.successes, 100);
  EXPECT_EQ(result.latency_ms.size(), 100u);
  EXPECT_EQ(result.window_replies, 100);  // by count, every reply is in the window
  EXPECT_TRUE(result.errors.empty());
  EXPECT_EQ(result.senders, 4);
  EXPECT_GT(result.window_s, 0);
}

TEST(ClosedLoop, TalliesErrorsByKeyAndKeepsTheirDetail) {
  Script script;
  script.fail_every = 5;
  LoadOptions options = bounded(50);
  options.concurrency = 3;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 50);
  EXPECT_EQ(result.successes, 40);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors.at("503"), 10);
  EXPECT_EQ(result.error_details.at("503"), "overloaded");
  EXPECT_EQ(result.latency_ms.size(), 40u);  // latency over successes only

  const nlohmann::json json = result_json(result, 4);
  EXPECT_EQ(json["errors"]["503"], 10);
  EXPECT_EQ(json["successes"], 40);
  EXPECT_DOUBLE_EQ(json["throughput"]["samples_per_s"].get<double>(),
                   4 * json["throughput"]["successes_per_s"].get<double>());
  EXPECT_TRUE(json["latency_ms"]["p999"].is_null());  // under 1,000 samples
}

TEST(ClosedLoop, LeavesTheWarmUpOut) {
  Script script;
  script.sleep = 1ms;
  LoadOptions options = bounded(10);
  options.warmup_s = 0.05;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 10);
  EXPECT_GT(script.sent.load(), 10);  // 50 ms of 1 ms requests came first
}

TEST(ClosedLoop, StopsAfterTheDuration) {
  Script script;
  script.sleep = 2ms;
  LoadOptions options;
  options.warmup_s = 0;
  options.duration_s = 0.1;
  options.concurrency = 2;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_GT(result.requests, 0);
  EXPECT_EQ(result.requests, script.sent.load());
  EXPECT_LE(result.requests, 2 * 50 + 2);  // 2 senders, >= 2 ms each, over 0.1 s
}

TEST(ClosedLoop, AReplyAfterTheWindowIsCountedButDoesNotStretchIt) {
  // One request sent at the start of a 0.1 s window answers after >= 150 ms:
  // it is a measured request (never dropped) but not a reply inside the
  // window, whose length stays the duration.
  Script script;
  script.sleep = 150ms;
  LoadOptions options;
  options.warmup_s = 0;
  options.duration_s = 0.1;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 1);
  EXPECT_EQ(result.successes, 1);
  EXPECT_EQ(result.window_replies, 0);
  EXPECT_DOUBLE_EQ(result.window_s, 0.1);
  EXPECT_EQ(result_json(result, 1)["throughput"]["requests_per_s"], 0.0);
}

TEST(OpenLoop, CountsLatencyFromTheScheduleNotFromTheSend) {
  // Two senders answering in >= 20 ms cannot keep up with 200 requests/s:
  // request 19 is scheduled at 95 ms but the 20 requests take >= 200 ms, so
  // its latency from the schedule is >= 105 ms, though each send is 20 ms.
  Script script;
  script.sleep = 20ms;
  LoadOptions options = bounded(20);
  options.rate = 200;
  options.connections = 2;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 20);
  EXPECT_EQ(script.sent.load(), 20);
  EXPECT_EQ(script.channels.load(), 2);
  for (double latency : result.latency_ms) EXPECT_GE(latency, 20.0);
  EXPECT_GE(*std::max_element(result.latency_ms.begin(), result.latency_ms.end()), 105.0);
  ASSERT_EQ(result.send_lag_ms.size(), 20u);
  EXPECT_GE(*std::max_element(result.send_lag_ms.begin(), result.send_lag_ms.end()), 85.0);
}

TEST(OpenLoop, KeepsTheScheduleWhenTheTargetKeepsUp) {
  // Enough senders: each request goes at its own time; 10 requests at
  // 100/s span at least the 90 ms between the first and the last schedule.
  Script script;
  LoadOptions options = bounded(10);
  options.rate = 100;
  options.connections = 4;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 10);
  EXPECT_GE(result.window_s, 0.09);
}

TEST(OpenLoop, LeavesTheScheduledWarmUpOut) {
  Script script;
  LoadOptions options = bounded(5);
  options.rate = 100;
  options.warmup_s = 0.1;  // requests 0..9 are warm-up
  options.connections = 2;
  const LoadResult result = run_load(options, scripted(script));
  EXPECT_EQ(result.requests, 5);
  EXPECT_EQ(script.sent.load(), 15);
}

TEST(RunLoad, RethrowsWhatAChannelFactoryThrew) {
  Script script;
  const ChannelFactory broken = [&script](int index) -> std::unique_ptr<Channel> {
    if (index == 1) fail(ErrorCode::kNotFound, "host 'nowhere' does not resolve");
    return std::make_unique<ScriptedChannel>(script);
  };
  LoadOptions options = bounded(10);
  options.concurrency = 2;
  EXPECT_THROW(run_load(options, broken), Error);
  EXPECT_EQ(script.sent.load(), 0);  // nothing is sent when a channel cannot open
}

TEST(RunLoad, RefusesOptionsOutOfRange) {
  Script script;
  LoadOptions options = bounded(1);
  options.concurrency = 0;
  EXPECT_THROW(run_load(options, scripted(script)), Error);
}

}  // namespace
}  // namespace inferlab::loadgen
