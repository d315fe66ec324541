// Aggregation of profiled runs into per-node, per-operator-type and
// whole-run figures (see profile.h).
#include <algorithm>

#include "inferlab/bench/statistics.h"
#include "inferlab/core/error.h"
#include "inferlab/profile/profile.h"

namespace inferlab::profile {

namespace {

constexpr double kNanosecondsPerMillisecond = 1e6;

// FLOP or bytes per `ms` milliseconds, in G per second.
double giga_per_second(double amount, double ms) { return ms > 0 ? amount / ms / 1e6 : 0; }

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double value : values) total += value;
  return total;
}

// Roofline: the attainable rate is min(peak compute, intensity x bandwidth);
// the node is memory-bound when the bandwidth term is the smaller.
void apply_peak(NodeStats& node, const MachinePeak& peak) {
  if (!node.cost_known || peak.gflops <= 0 || peak.gbps <= 0) return;
  if (node.bytes <= 0) return;
  const double intensity = node.flops / node.bytes;  // FLOP per byte
  const double memory_limit = intensity * peak.gbps;
  if (memory_limit < peak.gflops) {
    node.bound = "memory";
    node.peak_share = node.gb_per_s / peak.gbps;
  } else {
    node.bound = "compute";
    node.peak_share = node.gflops_per_s / peak.gflops;
  }
}

std::vector<NodeStats> node_totals(const std::vector<RunRecord>& runs, const NodeFactsMap& facts) {
  std::vector<NodeStats> nodes;
  std::unordered_map<std::string, size_t> index_of;
  for (const RunRecord& run : runs) {
    for (const backends::NodeEvent& event : run.events) {
      auto [it, inserted] = index_of.emplace(event.node_name, nodes.size());
      if (inserted) {
        NodeStats stats;
        stats.name = event.node_name;
        stats.op_type = event.op_type;
        if (auto fact = facts.find(event.node_name); fact != facts.end()) {
          stats.covers = fact->second.covers;
          stats.cost_known = fact->second.cost.known;
          stats.flops = fact->second.cost.flops;
          stats.bytes = fact->second.cost.bytes;
        }
        nodes.push_back(std::move(stats));
      }
      NodeStats& stats = nodes[it->second];
      ++stats.calls;
      stats.total_ms += static_cast<double>(event.duration_ns) / kNanosecondsPerMillisecond;
    }
  }
  return nodes;
}

std::vector<OpTypeStats> op_type_totals(const std::vector<NodeStats>& nodes, int runs,
                                        double wall_total_ms) {
  std::vector<OpTypeStats> types;
  std::unordered_map<std::string, size_t> index_of;
  for (const NodeStats& node : nodes) {
    auto [it, inserted] = index_of.emplace(node.op_type, types.size());
    if (inserted) types.push_back(OpTypeStats{node.op_type});
    OpTypeStats& type = types[it->second];
    ++type.nodes;
    type.calls += node.calls;
    type.total_ms += node.total_ms;
    type.flops += node.flops * static_cast<double>(node.calls) / runs;
    type.bytes += node.bytes * static_cast<double>(node.calls) / runs;
  }
  for (OpTypeStats& type : types) {
    type.share = wall_total_ms > 0 ? type.total_ms / wall_total_ms : 0;
    type.gflops_per_s = giga_per_second(type.flops, type.total_ms / runs);
    type.gb_per_s = giga_per_second(type.bytes, type.total_ms / runs);
  }
  std::stable_sort(types.begin(), types.end(), [](const OpTypeStats& a, const OpTypeStats& b) {
    return a.total_ms > b.total_ms;
  });
  return types;
}

}  // namespace

BackendProfile aggregate_runs(const std::string& backend, std::vector<RunRecord> runs,
                              const NodeFactsMap& facts, const std::optional<MachinePeak>& peak) {
  if (runs.empty()) fail(ErrorCode::kInvalidArgument, "profile: {} has no profiled run", backend);
  BackendProfile profile;
  profile.backend = backend;
  profile.runs = static_cast<int>(runs.size());
  for (const RunRecord& run : runs) {
    int64_t kernel_ns = 0;
    for (const backends::NodeEvent& event : run.events) kernel_ns += event.duration_ns;
    profile.wall_ms.push_back(static_cast<double>(run.wall_ns) / kNanosecondsPerMillisecond);
    profile.kernel_ms.push_back(static_cast<double>(kernel_ns) / kNanosecondsPerMillisecond);
  }
  profile.wall_p50_ms = bench::median(profile.wall_ms);
  profile.wall_mean_ms = bench::mean(profile.wall_ms);
  profile.kernel_p50_ms = bench::median(profile.kernel_ms);
  profile.kernel_mean_ms = bench::mean(profile.kernel_ms);
  profile.outside_mean_ms = profile.wall_mean_ms - profile.kernel_mean_ms;
  profile.outside_share =
      profile.wall_mean_ms > 0 ? profile.outside_mean_ms / profile.wall_mean_ms : 0;

  const double wall_total_ms = sum(profile.wall_ms);
  profile.nodes = node_totals(runs, facts);
  for (NodeStats& node : profile.nodes) {
    node.mean_ms = node.calls > 0 ? node.total_ms / static_cast<double>(node.calls) : 0;
    node.share = wall_total_ms > 0 ? node.total_ms / wall_total_ms : 0;
    node.gflops_per_s = giga_per_second(node.flops, node.mean_ms);
    node.gb_per_s = giga_per_second(node.bytes, node.mean_ms);
    const double calls_per_run = static_cast<double>(node.calls) / profile.runs;
    profile.flops_per_run += node.flops * calls_per_run;
    profile.bytes_per_run += node.bytes * calls_per_run;
  }
  profile.gflops_per_s = giga_per_second(profile.flops_per_run, profile.kernel_mean_ms);
  profile.gb_per_s = giga_per_second(profile.bytes_per_run, profile.kernel_mean_ms);
  if (peak) apply_machine_peak(profile, *peak);
  std::stable_sort(profile.nodes.begin(), profile.nodes.end(),
                   [](const NodeStats& a, const NodeStats& b) { return a.total_ms > b.total_ms; });
  profile.op_types = op_type_totals(profile.nodes, profile.runs, wall_total_ms);
  profile.records = std::move(runs);
  return profile;
}

void apply_machine_peak(BackendProfile& profile, const MachinePeak& peak) {
  for (NodeStats& node : profile.nodes) apply_peak(node, peak);
  if (peak.gflops > 0) profile.peak_share = profile.gflops_per_s / peak.gflops;
}

void add_baseline(BackendProfile& profile, std::vector<double> baseline_ms, uint64_t seed) {
  if (baseline_ms.size() != profile.wall_ms.size() || baseline_ms.empty()) {
    fail(ErrorCode::kInvalidArgument,
         "profile: {} has {} unprofiled runs for {} profiled ones (one each expected)",
         profile.backend, baseline_ms.size(), profile.wall_ms.size());
  }
  profile.baseline_p50_ms = bench::median(baseline_ms);
  // Per-pair ratios: run i and unprofiled run i are back to back, so a
  // change of machine speed during the profile (often a step of 20% or more
  // on a shared host) hits both and cancels, where a ratio of two P50s
  // taken across the step does not.
  std::vector<double> kernel_ratios;
  std::vector<double> wall_ratios;
  for (size_t run = 0; run < baseline_ms.size(); ++run) {
    if (baseline_ms[run] <= 0) continue;
    kernel_ratios.push_back(profile.kernel_ms[run] / baseline_ms[run]);
    wall_ratios.push_back(profile.wall_ms[run] / baseline_ms[run]);
  }
  if (!wall_ratios.empty()) {
    profile.kernel_to_baseline = bench::median(kernel_ratios);
    profile.overhead = bench::median(wall_ratios) - 1;
    bench::BootstrapOptions options;
    options.seed = seed;
    const bench::Interval ratio = bench::bootstrap_median_interval(wall_ratios, options);
    profile.overhead_low = ratio.low - 1;
    profile.overhead_high = ratio.high - 1;
  }
  if (profile.baseline_p50_ms > 0) {
    profile.kernel_p50_to_baseline_p50 = profile.kernel_p50_ms / profile.baseline_p50_ms;
  }
  profile.baseline_ms = std::move(baseline_ms);
}

}  // namespace inferlab::profile
