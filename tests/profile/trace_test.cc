// The Chrome trace-event file: it parses as JSON, every event carries the
// fields of its phase, each thread has its own named track, and every node
// execution and run is one complete event.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "inferlab/profile/trace.h"
#include "profile_test_support.h"
#include "test_util.h"

namespace inferlab::profile {
namespace {

ProfileResult two_backend_result() {
  ProfileResult result;
  result.options.model_path = "model.onnx";
  result.backends.push_back(aggregate_runs("native", two_runs(), two_run_facts()));
  result.backends.push_back(
      aggregate_runs("onnxruntime", {{3'000'000, {event("conv", "Conv", 0.1, 2, 4242)}}}, {}));
  return result;
}

TEST(Trace, FileParsesAsTraceEventJson) {
  const std::string dir = testing::make_temp_dir("profile-trace");
  write_trace(two_backend_result(), dir + "/trace.json");
  const nlohmann::json trace = nlohmann::json::parse(testing::read_file(dir + "/trace.json"));
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace.at("traceEvents").is_array());
  int complete = 0;
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    ASSERT_TRUE(e.at("name").is_string());
    ASSERT_TRUE(e.at("pid").is_number_integer());
    ASSERT_TRUE(e.at("tid").is_number_integer());
    const std::string phase = e.at("ph");
    ASSERT_TRUE(phase == "X" || phase == "M") << phase;
    if (phase == "X") {
      ++complete;
      EXPECT_TRUE(e.at("ts").is_number());
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
    } else {
      EXPECT_TRUE(e.at("args").at("name").is_string());
    }
  }
  // native: 2 runs + 4 node executions; onnxruntime: 1 run + 1 node.
  EXPECT_EQ(complete, 8);
  std::filesystem::remove_all(dir);
}

TEST(Trace, OneTrackPerThreadAndProcessPerBackend) {
  const nlohmann::json trace = trace_json(two_backend_result());
  std::set<std::pair<int, int>> named_threads;
  std::set<std::pair<int, int>> used_threads;
  std::set<std::string> processes;
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    const std::pair<int, int> track{e.at("pid").get<int>(), e.at("tid").get<int>()};
    if (e.at("ph") == "M" && e.at("name") == "thread_name") named_threads.insert(track);
    if (e.at("ph") == "M" && e.at("name") == "process_name") processes.insert(e["args"]["name"]);
    if (e.at("ph") == "X") used_threads.insert(track);
  }
  EXPECT_EQ(processes, (std::set<std::string>{"native", "onnxruntime"}));
  for (const auto& track : used_threads) EXPECT_EQ(named_threads.count(track), 1u);
  // native: runs track + threads 0 and 7; onnxruntime: runs track + thread 4242.
  EXPECT_EQ(used_threads.size(), 5u);
}

TEST(Trace, NodeEventsCarryOpTypeRunAndCost) {
  const nlohmann::json trace = trace_json(two_backend_result());
  double second_run_start = -1;
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("pid") == 1 && e.at("name") == "run 2")
      second_run_start = e.at("ts");
  }
  EXPECT_DOUBLE_EQ(second_run_start, 10'000.0 + 10.0);  // after run 1 and the gap
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("pid") != 1 || e.at("name") != "conv") continue;
    EXPECT_EQ(e.at("cat"), "FusedConv");
    EXPECT_EQ(e.at("args").at("op_type"), "FusedConv");
    EXPECT_DOUBLE_EQ(e.at("args").at("flops").get<double>(), 2e9);
    EXPECT_EQ(e.at("args").at("covers").size(), 2u);
    if (e.at("args").at("run") == 2) {
      EXPECT_DOUBLE_EQ(e.at("ts").get<double>(), 10'010.0 + 500.0);
    }
  }
}

}  // namespace
}  // namespace inferlab::profile
