// SessionOptions::mode = throughput: the threads split into streams that
// compute independent requests at the same time. Checked with results
// (every request's output equals a latency-mode session's, in order) and
// with CPU time per thread, never durations: with two single-thread streams
// and two callers, each caller computes its own requests and no other
// thread does real work (no team of two forms).
#include <omp.h>
#include <time.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "inferlab/runtime/session.h"
#include "inferlab/runtime/stream_pool.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

int64_t thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

int64_t process_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

std::vector<TensorMap> requests(const Session& session, int count) {
  std::vector<TensorMap> all;
  for (int i = 0; i < count; ++i) {
    const model::ValueInfo& input = session.inputs().at(0);
    all.push_back({{input.name, testing::random_float_tensor(input.static_shape(),
                                                             static_cast<uint32_t>(40 + i))}});
  }
  return all;
}

std::string model_path() { return testing::cache_dir() + "/models/mobilenet_v2_op17.onnx"; }

TEST(ThroughputMode, StreamsComputeRequestsAtOnceWithTheLatencyResults) {
  if (omp_get_num_procs() < 2) GTEST_SKIP() << "needs 2 CPUs";
  if (!std::filesystem::exists(model_path())) GTEST_SKIP() << model_path() << " is missing";
  SessionOptions latency_options;
  latency_options.threads = 1;
  Session latency = Session::load(model_path(), latency_options);
  SessionOptions options;
  options.threads = 2;
  options.mode = ExecutionMode::kThroughput;
  Session throughput = Session::load(model_path(), options);
  EXPECT_EQ(throughput.streams(), 2);
  EXPECT_EQ(throughput.threads_per_stream(), 1);

  const std::vector<TensorMap> inputs = requests(throughput, 12);
  const std::vector<TensorMap> outputs = throughput.run_many(inputs);  // plans built
  ASSERT_EQ(outputs.size(), inputs.size());
  const std::string& name = throughput.outputs().at(0).name;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_TRUE(outputs[i].at(name).equals(latency.run(inputs[i]).at(name))) << "request " << i;
  }
  // Two callers at once: each request computes on its caller's thread (a
  // team of one per stream), so the callers' own CPU time is nearly all of
  // the process's.
  int64_t caller_ns[2] = {0, 0};
  const int64_t process_before = process_cpu_ns();
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c) {
    callers.emplace_back([&, c] {
      const int64_t start = thread_cpu_ns();
      for (size_t i = 0; i < inputs.size(); ++i) throughput.run(inputs[i]);
      caller_ns[c] = thread_cpu_ns() - start;
    });
  }
  for (std::thread& caller : callers) caller.join();
  const int64_t total = process_cpu_ns() - process_before;
  for (int c = 0; c < 2; ++c) {
    EXPECT_GT(caller_ns[c], total / 3)
        << "caller " << c << " computed " << caller_ns[c] << " of " << total << " ns";
  }
  EXPECT_LT(total - caller_ns[0] - caller_ns[1], total / 5)
      << "threads other than the two callers computed: a stream used a team of more than one";
}

TEST(StreamPool, HandsOutEveryStreamOnceAndWaitsWhenAllAreBusy) {
  StreamPool pool(2);
  const int first = pool.acquire();
  const int second = pool.acquire();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  std::atomic<int> third{-1};
  std::thread waiter([&] { third = pool.acquire(); });
  // The waiter cannot get a stream until one is released.
  for (int spin = 0; spin < 1000; ++spin) std::this_thread::yield();
  EXPECT_EQ(third.load(), -1);
  pool.release(second);
  waiter.join();
  EXPECT_EQ(third.load(), 1);
  pool.release(first);
  pool.release(third);
}

TEST(ThroughputMode, RunMayBeCalledFromSeveralThreads) {
  if (!std::filesystem::exists(model_path())) GTEST_SKIP() << model_path() << " is missing";
  SessionOptions options;
  options.threads = 2;
  options.streams = 2;
  options.mode = ExecutionMode::kThroughput;
  Session session = Session::load(model_path(), options);
  const std::vector<TensorMap> inputs = requests(session, 4);
  std::vector<TensorMap> outputs(inputs.size());
  std::vector<std::thread> callers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    callers.emplace_back([&, i] { outputs[i] = session.run(inputs[i]); });
  }
  for (std::thread& caller : callers) caller.join();
  const std::string& name = session.outputs().at(0).name;
  const std::vector<TensorMap> sequential = session.run_many(inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_TRUE(outputs[i].at(name).equals(sequential[i].at(name))) << "request " << i;
  }
}

TEST(ThroughputMode, MoreStreamsThanThreadsIsRefusedNamingTheOption) {
  if (!std::filesystem::exists(model_path())) GTEST_SKIP() << model_path() << " is missing";
  SessionOptions options;
  options.threads = 2;
  options.streams = 3;
  options.mode = ExecutionMode::kThroughput;
  try {
    Session::load(model_path(), options);
    FAIL() << "3 streams on 2 threads were accepted";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("streams must be at most threads (2), got 3"),
              std::string::npos)
        << error.what();
  }
}

TEST(ThroughputMode, BindIsRefusedWithAMessageSayingWhatToUse) {
  if (!std::filesystem::exists(model_path())) GTEST_SKIP() << model_path() << " is missing";
  SessionOptions options;
  options.threads = 2;
  options.mode = ExecutionMode::kThroughput;
  Session session = Session::load(model_path(), options);
  try {
    session.bind(requests(session, 1)[0]);
    FAIL() << "bind() was accepted in throughput mode";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("run_many"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace inferlab::runtime
