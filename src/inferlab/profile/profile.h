// The profiler: runs a model N times with node timing on one or two
// backends, interleaved with unprofiled runs of the same model (to measure
// what profiling costs and to hold the per-node times against a normal run),
// and aggregates the engines' node events per node, per operator type and
// for the whole run, with each node's static cost (cost_model.h). With two
// backends the two profiles are lined up per operator type and, where node
// names survive fusion, per node. docs/profile.md describes the figures.
//
//   profile::ProfileOptions options;
//   options.model_path = "resnet50_op17.onnx";
//   options.backends = {"native", "onnxruntime"};
//   profile::ProfileResult result = profile::run_profile(options, registry);
//   write_json(profile::profile_json(result));
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/registry.h"
#include "inferlab/inputs/input_range.h"
#include "inferlab/profile/cost_model.h"

namespace inferlab::profile {

// The machine's limits, for the roofline share of each node and of the whole
// model: peak FP32 FMA throughput (GFLOP/s, on the threads the profile uses)
// and memory bandwidth (GB/s), as `inferlab sysinfo` measures them
// (machine_peak.h picks them out of its record); 0 leaves that share out.
struct MachinePeak {
  double gflops = 0;
  double gbps = 0;
  std::string source;  // where the figures come from, for the reader
};

struct ProfileOptions {
  std::string model_path;  // .onnx or a model directory
  std::vector<std::string> backends = {"native"};
  int threads = 1;  // 0: one per core
  int opt_level = 3;
  std::string max_isa = "auto";  // native kernels' widest ISA (BackendOptions::max_isa)
  std::map<std::string, Shape> input_shapes;  // for symbolic dims
  // Ranges of the random inputs (--input-range); the rest by the manifest,
  // else by dtype. Inputs follow the rules of `run` and `bench` (inputs/).
  std::map<std::string, inputs::ValueRange> input_ranges;
  int runs = 20;         // profiled runs (each followed by an unprofiled one)
  int warmup = 5;        // of each model, before counting
  bool baseline = true;  // interleave unprofiled runs
  // With two engines in one process, the pause before each engine's turn:
  // the other's threads stop spinning and give the cores back (ONNX
  // Runtime's pool spins after a run; at 2 threads on 2 cores that once
  // made InferLab's resnet50 look 1.6x slower than alone).
  double settle_ms = 100.0;
  int top = 10;
  uint64_t seed = 0;
  std::optional<MachinePeak> peak;
};

// One profiled execute(): its wall time and the engine's node events.
struct RunRecord {
  int64_t wall_ns = 0;
  std::vector<backends::NodeEvent> events;
};

// What is known of an executed node before running: its static cost per
// call and the ONNX nodes of the model file it covers (a fused node's
// `fused_nodes`, else its own name when the file has it).
struct NodeFacts {
  NodeCost cost;
  std::vector<std::string> covers;
};
using NodeFactsMap = std::unordered_map<std::string, NodeFacts>;

struct NodeStats {
  std::string name;
  std::string op_type;
  std::vector<std::string> covers;
  int64_t calls = 0;
  double total_ms = 0;  // over every profiled run
  double mean_ms = 0;   // per call
  double share = 0;     // of the profiled runs' wall time
  bool cost_known = false;
  double flops = 0;  // per call
  double bytes = 0;  // per call
  double gflops_per_s = 0;
  double gb_per_s = 0;
  double peak_share = 0;  // of MachinePeak (compute or memory, whichever binds)
  std::string bound;      // "compute", "memory", or "" without a peak
};

struct OpTypeStats {
  std::string op_type;
  int64_t nodes = 0;
  int64_t calls = 0;
  double total_ms = 0;
  double share = 0;
  double flops = 0;  // per run
  double bytes = 0;  // per run
  double gflops_per_s = 0;
  double gb_per_s = 0;
};

struct BackendProfile {
  std::string backend;
  nlohmann::json configuration;  // Model::configuration()
  int runs = 0;
  std::vector<double> wall_ms;    // per profiled run
  std::vector<double> kernel_ms;  // per profiled run: sum of its node times
  double wall_p50_ms = 0;
  double wall_mean_ms = 0;
  double kernel_p50_ms = 0;
  double kernel_mean_ms = 0;
  double outside_mean_ms = 0;  // wall - kernels, mean per run
  double outside_share = 0;
  double flops_per_run = 0;
  double bytes_per_run = 0;
  double gflops_per_s = 0;  // whole model, over the kernel time
  double gb_per_s = 0;
  double peak_share = 0;
  std::vector<NodeStats> nodes;  // by total time, longest first
  std::vector<OpTypeStats> op_types;
  // Unprofiled runs interleaved with the profiled ones (options.baseline).
  std::vector<double> baseline_ms;
  double baseline_p50_ms = 0;
  // Medians of per-pair ratios (profiled run i against unprofiled run i,
  // which runs right after it): robust to the machine changing speed.
  double kernel_to_baseline = 0;  // median of kernel_ms[i] / baseline_ms[i]
  double overhead = 0;            // median of wall_ms[i] / baseline_ms[i], - 1
  double overhead_low = 0;        // 95% bootstrap interval of that median
  double overhead_high = 0;
  double kernel_p50_to_baseline_p50 = 0;  // unpaired, for reference
  std::vector<RunRecord> records;         // for the trace
};

struct CrossOpRow {
  std::string op_type;  // base_op_type() of the engines' types
  double first_ms = 0;  // per run; 0 where the engine has no such node
  double second_ms = 0;
};

// Nodes of the two engines that cover the same ONNX nodes of the file.
struct CrossNodeRow {
  std::vector<std::string> onnx_nodes;
  std::vector<std::string> first_nodes;
  std::vector<std::string> second_nodes;
  double first_ms = 0;  // per run
  double second_ms = 0;
};

struct CrossEngine {
  std::string first;
  std::string second;
  std::vector<CrossOpRow> op_types;  // by combined time, longest first
  std::vector<CrossNodeRow> nodes;   // by combined time, longest first
  int64_t first_unmatched = 0;       // nodes no node of the other engine lines up with
  int64_t second_unmatched = 0;
  double first_matched_share = 0;  // of the engine's kernel time in `nodes`
  double second_matched_share = 0;
};

struct ProfileResult {
  ProfileOptions options;
  std::map<std::string, Shape> input_shapes;  // as run
  std::vector<BackendProfile> backends;
  std::optional<CrossEngine> cross;
};

using ProgressCallback = std::function<void(const std::string&)>;

// Throws Error naming the backend or model at fault.
ProfileResult run_profile(const ProfileOptions& options, backends::BackendRegistry& registry,
                          const ProgressCallback& progress = {});

// Aggregation (aggregate.cc), exposed for tests.
BackendProfile aggregate_runs(const std::string& backend, std::vector<RunRecord> runs,
                              const NodeFactsMap& facts,
                              const std::optional<MachinePeak>& peak = std::nullopt);

// Each node's roofline share and bound, and the whole run's share of the
// peak; aggregate_runs() calls it when it is given a peak, and a caller that
// learns the peak only after profiling calls it then.
void apply_machine_peak(BackendProfile& profile, const MachinePeak& peak);

// Records the unprofiled runs `baseline_ms` (one per profiled run, same order).
void add_baseline(BackendProfile& profile, std::vector<double> baseline_ms, uint64_t seed = 0);

// Cross-engine alignment (cross_engine.cc): operator types by base_op_type()
// (native FusedConv beside ORT's Conv), nodes as follows. `onnx_names`: the node names of
// the model file; a node of either engine covers its NodeStats::covers when
// set, else the file's node whose name its own name equals or, failing that,
// contains (longest first: engines decorate fused names).
CrossEngine compare_engines(const BackendProfile& first, const BackendProfile& second,
                            const std::vector<std::string>& onnx_names);

// The operator a fused type computes at its core: "FusedConv" -> "Conv",
// "FusedMatMul" -> "MatMul"; other types unchanged.
std::string base_op_type(const std::string& op_type);

nlohmann::json profile_json(const ProfileResult& result);

}  // namespace inferlab::profile
