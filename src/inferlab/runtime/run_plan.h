// RunPlan: everything a run of the main graph with one input-shape signature
// needs, decided before it runs, so that a steady-state run allocates
// nothing: the arena the memory planner laid out, each node's kernel context
// (inputs and outputs vectors built once), its outputs pre-placed in the
// arena, one persistent scratch buffer that the nodes share (they run one at
// a time, and scratch lives for one kernel call), and the values known before
// running (folded shape subgraphs), set instead of computed. Built and run by
// GraphExecutor (executor_plan.cc); kept per signature by the Session.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/kernel.h"
#include "inferlab/runtime/memory_plan.h"

namespace inferlab::runtime {

struct PlannedNode {
  bool skip = true;                   // folded at load, or known before running
  std::vector<const Tensor*> inputs;  // into the executor's value slots
  std::vector<Tensor> placed;         // per output: arena view, or empty (kernel allocates)
  std::vector<Tensor> outputs;        // what the kernel context writes
  std::unique_ptr<kernels::SubgraphRunner> subgraphs;
  std::unique_ptr<kernels::KernelContext> context;
  std::unique_ptr<kernels::KernelState> state;  // the kernel's prepare result, if any
};

class RunPlan {
 public:
  RunPlan() = default;
  RunPlan(const RunPlan&) = delete;
  RunPlan& operator=(const RunPlan&) = delete;

  // The signature: graph input shapes, in graph-input order.
  std::vector<Shape> input_shapes;
  MemoryPlan memory;
  std::vector<PlannedNode> nodes;              // per executor node
  std::vector<std::pair<int, Tensor>> known;   // slot -> value set before each run
  std::unordered_set<const void*> known_data;  // their memory (never handed out)
  std::vector<Tensor> results;                 // the last run's outputs
  kernels::ScratchBuffer scratch;              // every node's, as large as the largest ask
  double build_ms = 0;
  uint64_t last_used = 0;  // for the Session's LRU cache

  // Allocates the arena (64-byte aligned, zeroed) of `bytes`.
  void allocate_arena(int64_t bytes);
  std::byte* arena() { return arena_; }
  bool in_arena(const void* data) const {
    const auto* p = static_cast<const std::byte*>(data);
    return arena_ != nullptr && p >= arena_ && p < arena_ + arena_bytes_;
  }
  bool matches(const std::vector<const Tensor*>& inputs) const;

 private:
  std::unique_ptr<std::byte[]> storage_;
  std::byte* arena_ = nullptr;
  int64_t arena_bytes_ = 0;
};

}  // namespace inferlab::runtime
