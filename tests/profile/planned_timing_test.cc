// Node timing inside run plans: a timed session runs the same planned path
// as an untimed one (no separate slow path), and each run's records are
// fresh, in execution order and inside the run.
#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

TEST(PlannedNodeTiming, TimedSessionKeepsRunPlans) {
  const std::string path = testing::cache_dir() + "/models/mobilenet_v2_op17.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  SessionOptions options;
  options.node_timing = true;
  Session session = Session::load(path, options);
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 7);
  const std::string name = session.inputs().at(0).name;
  const TensorMap first = session.run({{name, input}});
  const size_t node_count = session.node_timings().size();
  ASSERT_GT(node_count, 10u);
  session.run({{name, input}});
  EXPECT_EQ(session.plans_built(), 1);
  EXPECT_NE(session.last_memory_plan(), nullptr) << "the timed run used a run plan";
  const std::vector<NodeTime> times = session.node_timings();
  EXPECT_EQ(times.size(), node_count) << "records of one run, not accumulated";
  for (size_t i = 1; i < times.size(); ++i) {
    EXPECT_GE(times[i].start_ns, times[i - 1].start_ns + times[i - 1].duration_ns);
    EXPECT_FALSE(times[i].node_name.empty());
  }
  // Same outputs as an untimed session.
  Session untimed = Session::load(path);
  const TensorMap expected = untimed.run({{name, input}});
  for (const auto& [output, tensor] : expected) {
    EXPECT_EQ(testing::relative_error(first.at(output), tensor), 0.0) << output;
  }
}

}  // namespace
}  // namespace inferlab::runtime
