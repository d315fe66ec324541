// SessionOptions::threads: at most N threads compute, the caller included,
// per session. Counted with CPU time per thread (/proc/self/task/*/schedstat),
// never with durations: with 1 thread the other threads of the process stay
// (almost) idle during runs; with 2 another thread does a real share of the
// work; and two sessions in one process keep their own counts when their
// runs alternate. The caller's own OpenMP setting is put back after a run.
// Denormals are flushed to zero on the caller and the team during a run
// (unless the session keeps them), and the modes put back after.
#include "inferlab/runtime/compute_threads.h"

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "runtime_test_models.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

// CPU nanoseconds per thread of this process.
std::map<long, int64_t> thread_cpu_ns() {
  std::map<long, int64_t> cpu;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream file(entry.path() / "schedstat");
    int64_t ns = 0;
    if (file >> ns) cpu[std::stol(entry.path().filename().string())] = ns;
  }
  return cpu;
}

struct CpuSplit {
  int64_t caller_ns = 0;
  int64_t others_ns = 0;
};

CpuSplit cpu_during(Session& session, const TensorMap& inputs, int runs) {
  const long caller = syscall(SYS_gettid);
  const std::map<long, int64_t> before = thread_cpu_ns();
  for (int i = 0; i < runs; ++i) session.run(inputs);
  const std::map<long, int64_t> after = thread_cpu_ns();
  CpuSplit split;
  for (const auto& [tid, ns] : after) {
    const auto it = before.find(tid);
    const int64_t used = ns - (it == before.end() ? 0 : it->second);
    (tid == caller ? split.caller_ns : split.others_ns) += used;
  }
  return split;
}

struct Loaded {
  Session session;
  TensorMap inputs;
};

Loaded load(const std::string& base, int threads, const std::string& plan_cache_dir = "") {
  SessionOptions options;
  options.threads = threads;
  options.plan_cache_dir = plan_cache_dir;
  Session session = Session::load(base + ".onnx", options);
  TensorMap inputs{{session.inputs()[0].name, read_npy(base + ".input.npy")}};
  session.run(inputs);  // builds the plan (unless it was built at load), starts the team
  return {std::move(session), std::move(inputs)};
}

void expect_own_counts(Loaded& one, Loaded& two) {
  for (int round = 0; round < 2; ++round) {
    const CpuSplit single = cpu_during(one.session, one.inputs, 3);
    const CpuSplit dual = cpu_during(two.session, two.inputs, 3);
    // One thread: the others only spin down from the previous 2-thread run.
    EXPECT_LT(single.others_ns, single.caller_ns / 5)
        << "round " << round << ": threads=1 but other threads used " << single.others_ns
        << " ns of CPU against the caller's " << single.caller_ns;
    // Two threads: a second thread does a real share of the work.
    EXPECT_GT(dual.others_ns, dual.caller_ns / 3)
        << "round " << round << ": threads=2 but other threads used only " << dual.others_ns
        << " ns of CPU against the caller's " << dual.caller_ns;
  }
}

TEST(ComputeThreads, ZeroMeansOnePerUsableCpu) {
  EXPECT_EQ(resolve_threads(0), omp_get_num_procs());
  EXPECT_EQ(resolve_threads(3), 3);
}

// Reports write a request of 0 as what it resolved to, never as 0.
TEST(ComputeThreads, LabelsSayWhatZeroMeant) {
  EXPECT_EQ(threads_label(0, 2), "2 (one per core)");
  EXPECT_EQ(threads_label(0, 0), "one per core");
  EXPECT_EQ(threads_label(3, 3), "3");
}

TEST(ComputeThreads, PutsTheCallersSettingBack) {
  omp_set_num_threads(5);
  {
    const ComputeThreads scope(1);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), 5);
}

// Team threads of `threads` that flush denormals.
int team_threads_flushing(int threads) {
  int flushing = 0;
#pragma omp parallel num_threads(threads) reduction(+ : flushing)
  flushing += flushes_denormals() ? 1 : 0;
  return flushing;
}

TEST(ComputeThreads, FlushesDenormalsOnTheCallerAndTheTeamForTheScopeOnly) {
  ASSERT_FALSE(flushes_denormals());
  for (int threads : {1, 2}) {
    {
      const ComputeThreads scope(threads, true);
      EXPECT_TRUE(flushes_denormals()) << threads;
      EXPECT_EQ(team_threads_flushing(threads), threads);
    }
    EXPECT_FALSE(flushes_denormals()) << threads;
    EXPECT_EQ(team_threads_flushing(threads), 0) << threads;
    {
      const ComputeThreads scope(threads);
      EXPECT_FALSE(flushes_denormals()) << threads;
    }
  }
}

// y = x * w with w = [1e-20, 1, 1]: 1e-20 * 1e-20 is denormal (flushed to
// zero), a denormal x reads as zero, and normal values stay exact.
TEST(ComputeThreads, ASessionFlushesDenormalsUnlessAskedToKeepThem) {
  onnx::ModelProto model = testing::make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  testing::set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {3});
  testing::set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {3});
  testing::add_float_initializer(graph, "w", {3}, {1e-20f, 1.0f, 1.0f});
  testing::add_graph_node(graph, "Mul", {"x", "w"}, {"y"}, "mul");
  const float denormal = 1e-39f;
  Tensor x(DataType::kFloat32, {3});
  x.data<float>()[0] = 1e-20f;
  x.data<float>()[1] = denormal;
  x.data<float>()[2] = 2.0f;
  for (bool flush : {true, false}) {
    SessionOptions options;
    options.threads = 2;
    options.flush_denormals = flush;
    Session session = testing::load_proto(model, options);
    for (int run = 0; run < 2; ++run) {  // unplanned, then planned
      const Tensor y = session.run({{"x", x}}).at("y");
      if (flush) {
        EXPECT_EQ(y.data<float>()[0], 0.0f);
        EXPECT_EQ(y.data<float>()[1], 0.0f);
      } else {
        EXPECT_GT(y.data<float>()[0], 0.0f);
        EXPECT_EQ(y.data<float>()[1], denormal);
      }
      EXPECT_EQ(y.data<float>()[2], 2.0f);
    }
    EXPECT_FALSE(flushes_denormals()) << "the caller's modes came back";
  }
}

TEST(ComputeThreads, TwoSessionsInOneProcessEachUseTheirOwnCount) {
  if (omp_get_num_procs() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const std::string base = testing::cache_dir() + "/models/resnet50_op17";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  Loaded one = load(base, 1);
  Loaded two = load(base, 2);
  expect_own_counts(one, two);
}

// Through the plan cache a static model is planned at load, outside any
// run: its primitives must still be fitted to the session's own count.
TEST(ComputeThreads, SessionsPlannedAtLoadByThePlanCacheUseTheirOwnCount) {
  if (omp_get_num_procs() < 2) GTEST_SKIP() << "needs 2 CPUs";
  const std::string base = testing::cache_dir() + "/models/resnet50_op17";
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  const std::string cache = testing::make_temp_dir("inferlab-threads-plan-cache");
  omp_set_num_threads(2);  // what the process would give a primitive built outside a run
  {
    Loaded saved = load(base, 1, cache);  // planned at load, then saved
    Loaded two = load(base, 2, cache);    // planned at load from the saved plan
    expect_own_counts(saved, two);
    Loaded cached = load(base, 1, cache);
    EXPECT_EQ(cached.session.plan_cache_status().outcome, "loaded");
    expect_own_counts(cached, two);
  }
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace inferlab::runtime
