// GraphExecutor: runs one graph (the main graph or an If/Loop body) with the
// reference kernels. Everything that does not depend on input values is
// decided once at construction: kernel lookup, NodeInfo, a slot per value,
// Constant nodes computed, and after which node each intermediate is freed.
// A run only fills slots, calls kernels and releases values.
// Subgraphs read enclosing values by name: a body's outer_names() are bound
// to the enclosing executor's slots, and the enclosing node counts as their
// consumer so they stay alive until it has run.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/runtime/memory_plan.h"
#include "inferlab/runtime/run_plan.h"
#include "inferlab/runtime/shape_inference.h"
#include "inferlab/runtime/weight_memory.h"

namespace inferlab::runtime {

// The kernels' per-node caches of a main graph (prepacked weights), by node
// index: shared by every executor of the same optimized graph (a session's
// streams, the sessions of one model file in a process), so each packed
// layout exists once. `mutex` is held while an executor builds a plan or
// reads the caches; runs read only what their plans bound.
struct NodeCaches {
  std::mutex mutex;
  std::vector<std::shared_ptr<kernels::KernelState>> caches;
};

struct ExecutorOptions {
  int64_t opset = 0;  // the model's default-domain opset
  // Every domain the model imports -> version (Model::opsets), for nodes of
  // other domains (com.microsoft, ai.inferlab).
  std::map<std::string, int64_t> opsets;
  int64_t max_tensor_bytes = int64_t{4} << 30;
  std::string source;  // the model, for error messages
  // Time every executed node of the main graph (off: no clock is read). In
  // planned runs only the kernel call is timed; records are preallocated.
  bool node_timing = false;
  // Main graph only: caches shared with other executors of the same graph
  // (sized to its nodes); null: caches of its own.
  std::shared_ptr<NodeCaches> node_caches;
};

// One executed node of the last run (node_timing on).
struct NodeTiming {
  const model::Node* node = nullptr;
  int64_t start_ns = 0;  // since the start of run()
  int64_t duration_ns = 0;
};

class GraphExecutor {
 public:
  // `graph` must outlive the executor. `is_subgraph`: names the graph does not
  // define are read from enclosing scopes (an error for the main graph).
  GraphExecutor(const model::Graph& graph, const kernels::OpRegistry& registry,
                const ExecutorOptions& options, bool is_subgraph);
  ~GraphExecutor();
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  const model::Graph& graph() const { return graph_; }
  // Values the graph reads from enclosing scopes, in the order run() takes them.
  const std::vector<std::string>& outer_names() const { return outer_names_; }
  // Nodes executed by the last run(), in order, when node_timing is on.
  const std::vector<NodeTiming>& node_timings() const { return node_timings_; }

  // `inputs` follow graph().inputs and `outer` follows outer_names().
  // `overrides` replace initializers by name for this run. `placed_outputs`
  // (optional, following graph().outputs; empty tensors allowed) are written
  // in place where the producing kernel accepts them. Returns the outputs in
  // graph().outputs order; none shares memory with a constant.
  std::vector<Tensor> run(const std::vector<const Tensor*>& inputs,
                          const std::vector<const Tensor*>& outer = {},
                          const std::map<std::string, const Tensor*>& overrides = {},
                          const std::vector<Tensor>* placed_outputs = nullptr);

  // A plan for running the main graph with the input shapes `shapes` was
  // inferred from (executor_plan.cc). `input_shapes` is its signature.
  std::unique_ptr<RunPlan> build_plan(const ShapeInferenceResult& shapes,
                                      std::vector<Shape> input_shapes,
                                      const MemoryPlanOptions& memory_options);
  // Like run() without overrides, using `plan` (built by this executor; the
  // inputs must have its shapes). Allocates nothing once the plan's scratch
  // buffer has grown, except where a kernel's output shape differs from the
  // plan's. Returns plan.results (valid until the next run).
  const std::vector<Tensor>& run_planned(RunPlan& plan, const std::vector<const Tensor*>& inputs,
                                         const std::vector<Tensor>* placed_outputs = nullptr);

  // Prepacked weights (executor_constants.cc). While a plan is built, an
  // initializer every reader of which holds a prepacked copy (its kernel's
  // prepare said so: PrepareContext::set_prepacked) is released: its slot
  // keeps a stand-in (type and shape, no data), and the memory goes once the
  // other references to it go too. `listener` is told of every constant the
  // executor replaces (by a stand-in, or by the original rebuilt), so the
  // owner of those references (the Session: the model's graph, the shape
  // inference result) replaces them in step.
  using ConstantListener = std::function<void(const std::string& name, const Tensor& value)>;
  void set_constant_listener(ConstantListener listener);
  WeightMemory weight_memory() const;
  // The released initializers, rebuilt from their packed copies for the
  // caller (the executor keeps them released).
  std::vector<std::pair<std::string, Tensor>> rebuilt_constants() const;
  // Every node cache's packed copies, by node (its index in graph().nodes),
  // for a plan file to keep.
  using PackedCopies = std::vector<std::pair<size_t, std::vector<kernels::PackedCopy>>>;
  PackedCopies packed_copies() const;
  // Gives node `node` (index in graph().nodes) a cache restored from a plan
  // file, before any plan is built. An initializer the graph holds as a
  // stand-in (saved released) is rebuilt from such caches when needed.
  void restore_node_cache(size_t node, std::shared_ptr<kernels::KernelState> cache);
  // The caches this executor reads (shared or its own).
  const std::shared_ptr<NodeCaches>& node_caches() const { return node_caches_; }
  // Nodes by the kernel library that computes them ("oneDNN", "InferLab
  // x86", "reference"): OpKernel::library of each node's kernel.
  std::map<std::string, int64_t> kernel_libraries() const;

 private:
  struct CompiledNode;
  class SubgraphCaller;

  int add_slot(const std::string& name);
  // `node` null: a graph output.
  int resolve_input(const std::string& name, const model::Node* node);
  void compile_nodes(const kernels::OpRegistry& registry);
  void compile_subgraphs(CompiledNode& compiled, const kernels::OpRegistry& registry);
  void fold_constant_node(CompiledNode& compiled);
  void compute_release_lists();
  void execute_node(CompiledNode& compiled, const std::vector<Tensor>* placed);
  void run_timed(const std::vector<Tensor>* placed_outputs);
  void check_outputs(const CompiledNode& compiled, const std::vector<Tensor>& outputs) const;
  // Both return the scratch the node's kernel declared it will ask for.
  size_t plan_node(CompiledNode& compiled, PlannedNode& planned, RunPlan& plan,
                   const ShapeInferenceResult& shapes);
  size_t prepare_node(CompiledNode& compiled, PlannedNode& planned,
                      const ShapeInferenceResult& shapes);
  void execute_planned(CompiledNode& compiled, PlannedNode& planned, RunPlan& plan,
                       const std::vector<Tensor>* placed);
  // The kernel call of a planned node, timed into node_timings_ when on.
  void compute_planned(CompiledNode& compiled, kernels::KernelContext& context);
  Tensor settle_output(const PlannedNode& planned, size_t index, Tensor output,
                       const RunPlan& plan) const;
  void clear_values();
  std::vector<Tensor> collect_outputs();
  [[noreturn]] void rethrow_naming_node(const CompiledNode& compiled) const;
  // Prepacked constants (executor_constants.cc).
  void index_constant_readers();
  void settle_constants(CompiledNode& compiled, const kernels::PrepareContext& context,
                        bool has_state);
  bool releasable(int slot) const;
  void release_constant(int slot);
  Tensor rebuild_constant(int slot) const;
  void restore_constant(int slot);
  void keep_constants();
  void set_constant(int slot, Tensor value);
  int64_t caches_packed_here() const;

  const model::Graph& graph_;
  ExecutorOptions options_;
  bool is_subgraph_;
  std::unordered_map<std::string, int> slot_of_;
  std::vector<std::string> slot_names_;
  std::vector<Tensor> values_;     // per slot; constants stay, the rest live for one run
  std::vector<bool> is_constant_;  // per slot
  std::unordered_set<const void*> constant_data_;
  std::vector<int> input_slots_;
  std::vector<int> outer_slots_;
  std::vector<std::string> outer_names_;
  std::vector<int> output_slots_;
  std::shared_ptr<NodeCaches> node_caches_;
  std::vector<std::unique_ptr<CompiledNode>> nodes_;
  std::vector<int> output_position_of_slot_;  // per slot: index in graph outputs, or -1
  std::vector<Tensor> scratch_outputs_;
  std::vector<NodeTiming> node_timings_;  // capacity: one per node (node_timing on)
  std::chrono::steady_clock::time_point run_start_;
  // Per slot: the nodes reading a constant at run time, as (node, input
  // index); input -1: the node's subgraphs read it.
  struct ConstantReader {
    CompiledNode* node = nullptr;
    int input = -1;
  };
  std::vector<std::vector<ConstantReader>> constant_readers_;
  std::vector<bool> is_initializer_;  // per slot: only these are released
  std::vector<bool> released_;        // per slot: a stand-in holds its place
  bool keep_constants_ = false;       // a run without a plan needed the originals: no more releases
  int64_t packed_here_ = 0;  // reorders this executor's plans made (the caches may be shared)
  ConstantListener constant_listener_;
};

}  // namespace inferlab::runtime
