// Aggregation of profiled runs: per-node and per-type arithmetic, the time
// outside kernels, the roofline share against a machine peak, and the
// comparison with interleaved unprofiled runs.
#include <gtest/gtest.h>

#include "inferlab/bench/statistics.h"
#include "inferlab/core/error.h"
#include "profile_test_support.h"

namespace inferlab::profile {
namespace {

const NodeStats& find_node(const BackendProfile& profile, const std::string& name) {
  for (const NodeStats& node : profile.nodes)
    if (node.name == name) return node;
  throw std::runtime_error("no node " + name);
}

TEST(ProfileAggregation, NodeTotalsMeansSharesAndRates) {
  const BackendProfile p = aggregate_runs("native", two_runs(), two_run_facts());
  EXPECT_EQ(p.runs, 2);
  ASSERT_EQ(p.nodes.size(), 2u);
  EXPECT_EQ(p.nodes[0].name, "conv");  // longest first
  const NodeStats& conv = find_node(p, "conv");
  EXPECT_EQ(conv.calls, 2);
  EXPECT_DOUBLE_EQ(conv.total_ms, 9.0);
  EXPECT_DOUBLE_EQ(conv.mean_ms, 4.5);
  EXPECT_DOUBLE_EQ(conv.share, 9.0 / 22.0);
  EXPECT_NEAR(conv.gflops_per_s, 2e9 / 4.5e-3 / 1e9, 1e-9);
  EXPECT_NEAR(conv.gb_per_s, 1e6 / 4.5e-3 / 1e9, 1e-9);
  EXPECT_EQ(conv.covers, (std::vector<std::string>{"conv_onnx", "relu_onnx"}));
  EXPECT_TRUE(conv.bound.empty()) << "no peak given";
  const NodeStats& relu = find_node(p, "relu");
  EXPECT_EQ(relu.calls, 2);
  EXPECT_DOUBLE_EQ(relu.gflops_per_s, 0.0);
  EXPECT_NEAR(relu.gb_per_s, 4e6 / 1e-3 / 1e9, 1e-9);
}

TEST(ProfileAggregation, RunFiguresAndOutsideKernels) {
  const BackendProfile p = aggregate_runs("native", two_runs(), two_run_facts());
  EXPECT_EQ(p.wall_ms, (std::vector<double>{10.0, 12.0}));
  EXPECT_EQ(p.kernel_ms, (std::vector<double>{5.0, 6.0}));
  EXPECT_DOUBLE_EQ(p.wall_p50_ms, 11.0);
  EXPECT_DOUBLE_EQ(p.kernel_p50_ms, 5.5);
  EXPECT_DOUBLE_EQ(p.outside_mean_ms, 5.5);
  EXPECT_DOUBLE_EQ(p.outside_share, 0.5);
  EXPECT_DOUBLE_EQ(p.flops_per_run, 2e9);
  EXPECT_DOUBLE_EQ(p.bytes_per_run, 5e6);
  EXPECT_NEAR(p.gflops_per_s, 2e9 / 5.5e-3 / 1e9, 1e-9);
  EXPECT_EQ(p.records.size(), 2u);
}

TEST(ProfileAggregation, OperatorTypesSumTheirNodes) {
  std::vector<RunRecord> runs = two_runs();
  runs[0].events.push_back(event("relu2", "Relu", 7, 2));
  const BackendProfile p = aggregate_runs("native", runs, two_run_facts());
  ASSERT_EQ(p.op_types.size(), 2u);
  const OpTypeStats& relu = p.op_types[1].op_type == "Relu" ? p.op_types[1] : p.op_types[0];
  EXPECT_EQ(relu.op_type, "Relu");
  EXPECT_EQ(relu.nodes, 2);
  EXPECT_EQ(relu.calls, 3);
  EXPECT_DOUBLE_EQ(relu.total_ms, 4.0);
  EXPECT_DOUBLE_EQ(relu.share, 4.0 / 22.0);
  EXPECT_DOUBLE_EQ(relu.bytes, 4e6);  // per run: relu's 2 calls of 4 MB over 2 runs; relu2 unknown
  double shares = p.outside_share;
  for (const OpTypeStats& type : p.op_types) shares += type.share;
  EXPECT_NEAR(shares, 1.0, 1e-12);
}

TEST(ProfileAggregation, RooflineAgainstMachinePeak) {
  const BackendProfile p =
      aggregate_runs("native", two_runs(), two_run_facts(), MachinePeak{1000.0, 10.0});
  const NodeStats& conv = find_node(p, "conv");  // 2000 FLOP per byte: compute-bound
  EXPECT_EQ(conv.bound, "compute");
  EXPECT_NEAR(conv.peak_share, conv.gflops_per_s / 1000.0, 1e-12);
  const NodeStats& relu = find_node(p, "relu");  // no FLOPs: memory-bound
  EXPECT_EQ(relu.bound, "memory");
  EXPECT_NEAR(relu.peak_share, relu.gb_per_s / 10.0, 1e-12);
  EXPECT_NEAR(p.peak_share, p.gflops_per_s / 1000.0, 1e-12);
}

TEST(ProfileAggregation, BaselineGivesKernelShareAndOverheadInterval) {
  BackendProfile p = aggregate_runs("native", two_runs(), two_run_facts());
  add_baseline(p, {10.0, 11.0});
  EXPECT_DOUBLE_EQ(p.baseline_p50_ms, 10.5);
  // Medians of the per-pair ratios: kernels {5, 6} and walls {10, 12}
  // against unprofiled {10, 11}.
  EXPECT_DOUBLE_EQ(p.kernel_to_baseline, (5.0 / 10.0 + 6.0 / 11.0) / 2);
  EXPECT_DOUBLE_EQ(p.overhead, (10.0 / 10.0 + 12.0 / 11.0) / 2 - 1);
  EXPECT_DOUBLE_EQ(p.kernel_p50_to_baseline_p50, 5.5 / 10.5);
  EXPECT_LE(p.overhead_low, p.overhead);
  EXPECT_GE(p.overhead_high, p.overhead);
  EXPECT_THROW(add_baseline(p, {10.0}), Error);
}

// The machine slows by 25% between profiled run 3 and the unprofiled run
// right after it (as shared hosts do): the P50s then fall on different
// sides of the step and their ratio is off by 9%, while the medians of the
// per-pair ratios stay at the true figures.
TEST(ProfileAggregation, PairedFiguresIgnoreAStepInMachineSpeed) {
  BackendProfile p;
  p.backend = "native";
  std::vector<double> baseline;
  for (int run = 0; run < 8; ++run) {
    const double speed = run < 4 ? 1.0 : 1.25;
    p.wall_ms.push_back(10.1 * speed);
    p.kernel_ms.push_back(10.0 * speed);
    baseline.push_back(run < 3 ? 10.0 : 12.5);
  }
  p.wall_p50_ms = bench::median(p.wall_ms);
  p.kernel_p50_ms = bench::median(p.kernel_ms);
  add_baseline(p, baseline);
  EXPECT_LT(p.kernel_p50_to_baseline_p50, 0.92) << "the unpaired ratio is thrown off";
  EXPECT_NEAR(p.kernel_to_baseline, 1.0, 1e-9);
  EXPECT_NEAR(p.overhead, 0.01, 1e-9);
  EXPECT_LE(p.overhead_low, 0.01 + 1e-9);
  EXPECT_GE(p.overhead_high, 0.01 - 1e-9);
}

TEST(ProfileAggregation, NoRunsIsAnError) { EXPECT_THROW(aggregate_runs("native", {}, {}), Error); }

}  // namespace
}  // namespace inferlab::profile
