// Session: the engine's face. Load a model once (import, validate, check
// every operator is supported, infer shapes), then run it as often as needed.
//   auto session = inferlab::runtime::Session::load("model.onnx");
//   auto outputs = session.run({{"input", tensor}});
// Two run forms: run(inputs) returns new outputs; bind(inputs, outputs) then
// run() writes into caller-owned outputs. A Session is not safe to run from
// several threads at once; use one Session per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/cpu/isa.h"
#include "inferlab/model/graph.h"
#include "inferlab/optimizer/optimizer.h"
#include "inferlab/runtime/memory_plan.h"
#include "inferlab/runtime/plan_cache.h"
#include "inferlab/runtime/shared_model.h"
#include "inferlab/runtime/weight_memory.h"

namespace inferlab::runtime {

using TensorMap = std::map<std::string, Tensor>;
class RunPlan;
struct MatchedInputs;

// Latency: every thread of the session on one request at a time. Throughput:
// the threads split into streams, each running its own request at the same
// time (run() may then be called from several threads; run_many() does so).
enum class ExecutionMode { kLatency, kThroughput };

struct SessionOptions {
  // Threads that compute, the caller included; 0 means one per core. In
  // throughput mode, all streams together.
  int threads = 0;
  ExecutionMode mode = ExecutionMode::kLatency;
  // Throughput mode: how many requests compute at once, each on
  // threads / streams threads (at least 1); 0: one stream per thread; more
  // streams than threads is refused.
  int streams = 0;
  // Fixed shapes for inputs with symbolic dims, by input name. Inputs not
  // named keep their file shape (a leading symbolic dim defaults to 1 where
  // a caller such as the CLI asks for it).
  std::map<std::string, Shape> input_shapes;
  // Largest single tensor accepted from the model file or created while running.
  int64_t max_tensor_bytes = int64_t{4} << 30;
  // Run the ONNX checker at load.
  bool run_checker = true;
  // Intermediate values of the main graph (by value name) returned after
  // the model's outputs, for layer-by-layer comparison.
  std::vector<std::string> extra_outputs;
  // Time every node of each run (see node_timings()); off costs nothing.
  // Planned runs time each node's kernel call only (the profiler's "outside
  // kernels" is the rest of the run).
  bool node_timing = false;
  // Graph optimization level (docs/optimizer.md): 0 none, 1 basic,
  // 2 extended (fusions), 3 all.
  int opt_level = 3;
  // The widest vector ISA the CPU kernels may use: the best the CPU has, at
  // most this (kernels/cpu/isa.h). Lower it to run, and test, the AVX2 or
  // portable paths on an AVX-512 machine. oneDNN's limit is per process and
  // the first session's wins: it is set before oneDNN's first primitive
  // (like DNNL_MAX_CPU_ISA), so a process that mixes ISAs keeps the first.
  kernels::cpu::Isa max_isa = kernels::cpu::Isa::kAvx512;
  // Directory of saved plans (runtime/plan_cache.h); empty: no cache. Only
  // Session::load (a model file) uses it.
  std::string plan_cache_dir;
  // Compute with x86's flush-to-zero and denormals-are-zero modes during
  // runs (runtime/compute_threads.h): a denormal operand costs an FMA about
  // a hundred cycles; results below 1.2e-38 become 0.
  bool flush_denormals = true;
  // Run plans (memory laid out in one arena, kernel contexts built once) kept
  // for this many input-shape signatures, least recently used dropped first;
  // a run with new input shapes builds one. 0: no plans (every run allocates).
  int max_cached_plans = 8;
  // Models already open in this process (shared_model.h): a load of a file
  // some live Session loaded with the same graph-shaping options (opt level,
  // input shapes, extra outputs, ISA) shares its graph, constants and
  // prepacked weights instead of importing and optimizing again. Null: the
  // session shares only among its own streams.
  std::shared_ptr<SharedModels> shared_models;
};

// One node executed by the last run (SessionOptions::node_timing).
struct NodeTime {
  std::string node_name;
  std::string op_type;
  int64_t start_ns = 0;  // since the start of the run
  int64_t duration_ns = 0;
};

class Session {
 public:
  static Session load(const std::string& path, const SessionOptions& options = {});
  static Session load_bytes(const void* data, size_t size, const SessionOptions& options = {});

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // The optimized model. An initializer released after prepacking (see
  // weight_memory()) is a stand-in there: type and shape, no data
  // (Tensor::has_data() is false). model_with_weights() is a copy with every
  // weight's data (released ones rebuilt for the copy; the session keeps them
  // released): what to save or export.
  const model::Model& model() const;
  model::Model model_with_weights() const;
  // Runtime inputs and outputs, with shapes as fixed by the options.
  const std::vector<model::ValueInfo>& inputs() const;
  const std::vector<model::ValueInfo>& outputs() const;
  const SessionOptions& options() const;
  // Type and shape of every value of the main graph as inferred at load from
  // the inputs' fixed shapes; values known only at run time keep the types
  // the file declares (possibly symbolic or without shape).
  const std::unordered_map<std::string, model::ValueInfo>& value_infos() const;

  // Runs with named inputs (every graph input must be given, with the
  // declared dtype and a shape compatible with the declared one). In
  // throughput mode it may be called from several threads at once: each
  // call takes a free stream (waiting for one).
  TensorMap run(const TensorMap& inputs);
  // Independent requests, in order of `requests`: in throughput mode spread
  // over the streams, one thread per stream; in latency mode one after the
  // other.
  std::vector<TensorMap> run_many(const std::vector<TensorMap>& requests);
  // Streams that compute at once (1 in latency mode) and threads per stream.
  // The streams share one graph, its constants and its packed weights.
  int streams() const;
  int threads_per_stream() const;

  // Binds inputs and caller-owned outputs for run(), and builds (or finds)
  // the run plan for the inputs' shapes, so run() only executes. Outputs may
  // be omitted (then run() allocates them; read them with bound_outputs()).
  // Latency mode only (one bound request has no use for streams).
  void bind(const TensorMap& inputs, const TensorMap& outputs = {});
  void run();
  const TensorMap& bound_outputs() const;

  // Times the graph was executed (every stream and specialization alive
  // counted): what a test checks to know that one call computes once.
  int64_t executions() const;

  // Nodes of the last run, in execution order (empty unless node_timing).
  std::vector<NodeTime> node_timings() const;

  // What the optimizer did at load (empty passes at opt_level 0; empty too
  // when the plan came from the cache).
  const optimizer::OptimizationLog& optimization_log() const;
  // Whether the plan came from the cache, was built and saved, or replaced
  // a rejected file (and why).
  const PlanCacheStatus& plan_cache_status() const;
  // Run plans (SessionOptions::max_cached_plans): how long building the most
  // recent one took (shape inference for its signature, memory planning,
  // kernel contexts), how many were built, how many are cached, the
  // memory plan of the last bound or run (null before a planned one), and
  // the bytes of its scratch buffer (faulted in when the plan was built).
  double last_plan_build_ms() const;
  int64_t plans_built() const;
  size_t cached_plans() const;
  const MemoryPlan* last_memory_plan() const;
  size_t last_scratch_bytes() const;
  // Input shapes this session has specialized to (a model with dynamic
  // inputs at opt level >= 2 is optimized again for each signature it runs
  // with; model(), value_infos(), optimization_log() and the figures above
  // then describe the one that ran last). 0: no specialization.
  size_t shape_specializations() const;

  // The weights (constants of the main graph) in memory. When a plan is
  // built, a weight that every node reading it holds prepacked (oneDNN's
  // layout, in the node's cache) is released: the session keeps it once,
  // packed. A run without a plan (plans off, or an initializer overridden)
  // rebuilds the originals from those copies, bit for bit, and keeps them
  // from then on.
  WeightMemory weight_memory() const;
  // Nodes by the kernel library computing them (GraphExecutor::kernel_libraries).
  std::map<std::string, int64_t> kernel_libraries() const;

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  // `optimized`: the model is a saved plan or a shared one, already
  // optimized. `shared`: the SharedModel it was copied from (its caches are
  // used); null: the session makes its own.
  static Session from_model(model::Model model, const SessionOptions& options,
                            bool optimized = false, std::shared_ptr<SharedModel> shared = nullptr);
  static Session from_shared(const std::shared_ptr<SharedModel>& shared,
                             const SessionOptions& options);
  static Session load_shared(const std::string& path, const SessionOptions& options);
  static Session shared_or_new(const std::string& path, const SessionOptions& options,
                               const std::function<Session()>& make);
  static Session load_with_cache(const std::string& path, const SessionOptions& options);
  static Session load_one(const std::string& path, const SessionOptions& options);
  // Throughput mode: splits the threads and loads the other streams.
  using LoadStream = std::function<Session(const SessionOptions&)>;
  static Session with_streams(const SessionOptions& options, const LoadStream& load);
  TensorMap run_on_this_stream(const TensorMap& inputs);
  Session* specialization_for(const MatchedInputs& matched);
  const Session* active_specialization() const;
  void run_bound_specialization();
  RunPlan* plan_for(const MatchedInputs& matched);
  RunPlan* build_plan(std::vector<Shape> signature);
  void plan_static_inputs();
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferlab::runtime
