// Static memory planner: places every intermediate tensor of the main graph
// at an offset in one arena, from the execution order (graph.nodes) and the
// shapes inferred for one input-shape signature. A tensor lives from the node
// that produces it to the last node that reads it (a node whose If/Loop body
// reads it counts as a reader); tensors whose lifetimes overlap never share
// bytes. Two refinements: view operators (Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout) share their input's buffer, and an elementwise
// operator writes over an input of the same shape that dies at it (in place).
// Not planned: graph inputs and outputs, initializers, values known before
// running (folded shape subgraphs), strings, and values without a static shape.
//
// Two placement strategies, measured on the zoo models at batch 1 (arena
// bytes, in place and views on; naive = sum of all planned non-view
// intermediates; all figures in docs/ARCHITECTURE.md):
//   model              naive        greedy-by-size  best-fit (execution order)
//   resnet50_op17      105,779,200  7,225,344       10,436,608
//   mobilenet_v2_op17   52,006,272  6,021,120        6,823,936
//   efficientnet_b0     86,396,032  9,633,792       10,436,608
//   encoder_op17       264,634,368  3,538,944        3,932,160
// Greedy-by-size is the default: it was never larger on these models.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::runtime {

enum class PlacementStrategy {
  // Largest buffers first, each in the smallest gap left by the buffers
  // already placed whose lifetimes overlap it (TFLite's greedy-by-size).
  kGreedyBySize,
  // Buffers in execution order, each in the smallest free gap at that time
  // (an online best-fit allocator with perfect coalescing).
  kBestFit,
};

const char* placement_strategy_name(PlacementStrategy strategy);

struct MemoryPlanOptions {
  PlacementStrategy strategy = PlacementStrategy::kGreedyBySize;
  bool in_place = true;
  int64_t alignment = 64;  // every offset and size is a multiple of this
};

struct TensorPlacement {
  enum class Kind { kOwn, kInPlace, kView };
  std::string value;
  Kind kind = Kind::kOwn;
  int64_t offset = 0;  // in the arena
  int64_t bytes = 0;   // the tensor's own size (not rounded)
  int first_step = 0;  // index in graph.nodes of the producer
  int last_step = 0;   // index of the last reader (first_step when none)
  int buffer = 0;      // index of the arena buffer it occupies
};

struct MemoryPlan {
  PlacementStrategy strategy = PlacementStrategy::kGreedyBySize;
  int64_t arena_bytes = 0;
  // What allocating every planned, non-view intermediate separately takes.
  int64_t naive_bytes = 0;
  int64_t in_place = 0;  // tensors written over a dying input
  int64_t views = 0;     // tensors sharing their input's buffer
  int64_t buffers = 0;
  std::vector<TensorPlacement> placements;

  // The placement of `value`, or null when it is not planned.
  const TensorPlacement* find(const std::string& value) const;
};

MemoryPlan plan_memory(const model::Graph& graph, const ShapeInferenceResult& shapes,
                       const MemoryPlanOptions& options = {});

// Operators whose output 0 is a view of input 0 (same bytes, new shape).
bool is_view_op(const std::string& op_type);
// Elementwise operators that may write their output over an input of the
// same shape (every output element depends only on the same input element).
bool is_in_place_op(const std::string& op_type);
// The inputs of `node` whose buffer its output may take over when they die
// there: both operands of an elementwise op, a fused convolution's residual.
std::vector<size_t> in_place_inputs(const model::Node& node);

}  // namespace inferlab::runtime
