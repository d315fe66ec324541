// The static memory planner; see memory_plan.h. Three steps: lifetimes of
// the plannable values, buffers (a value, plus the views and in-place
// results that share it), then offsets for the buffers.
#include "inferlab/runtime/memory_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace inferlab::runtime {

namespace {

struct Buffer {
  int64_t bytes = 0;  // rounded up to the alignment
  int start = 0;
  int end = 0;
  int64_t offset = 0;
};

int64_t align_up(int64_t bytes, int64_t alignment) {
  const int64_t at_least_one = std::max<int64_t>(bytes, 1);
  return (at_least_one + alignment - 1) / alignment * alignment;
}

// Names a graph reads from enclosing scopes, its nested graphs included.
void collect_outer_reads(const model::Graph& graph, std::unordered_set<std::string>& reads) {
  std::unordered_set<std::string> defined;
  for (const model::ValueInfo& input : graph.inputs) defined.insert(input.name);
  for (const auto& [name, tensor] : graph.initializers) defined.insert(name);
  for (const model::Node& node : graph.nodes) {
    for (const std::string& output : node.outputs) defined.insert(output);
  }
  std::unordered_set<std::string> nested;
  for (const model::Node& node : graph.nodes) {
    for (const std::string& input : node.inputs) {
      if (!input.empty() && defined.count(input) == 0) reads.insert(input);
    }
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
        collect_outer_reads(*attribute.g, nested);
      }
    }
  }
  for (const std::string& name : nested) {
    if (defined.count(name) == 0) reads.insert(name);
  }
}

bool overlaps(const Buffer& a, const Buffer& b) { return a.start <= b.end && b.start <= a.end; }

// Places buffers in `order`, each at the start of the smallest gap among the
// already placed buffers whose lifetimes overlap it (or above them all).
int64_t place_buffers(std::vector<Buffer>& buffers, const std::vector<size_t>& order) {
  int64_t arena = 0;
  std::vector<size_t> placed;
  std::vector<const Buffer*> live;
  for (size_t index : order) {
    Buffer& buffer = buffers[index];
    live.clear();
    for (size_t other : placed) {
      if (overlaps(buffers[other], buffer)) live.push_back(&buffers[other]);
    }
    std::sort(live.begin(), live.end(),
              [](const Buffer* a, const Buffer* b) { return a->offset < b->offset; });
    int64_t best_offset = -1;
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t cursor = 0;
    for (const Buffer* other : live) {
      const int64_t gap = other->offset - cursor;
      if (gap >= buffer.bytes && gap < best_gap) {
        best_gap = gap;
        best_offset = cursor;
      }
      cursor = std::max(cursor, other->offset + other->bytes);
    }
    buffer.offset = best_offset >= 0 ? best_offset : cursor;
    arena = std::max(arena, buffer.offset + buffer.bytes);
    placed.push_back(index);
  }
  return arena;
}

std::vector<size_t> placement_order(const std::vector<Buffer>& buffers,
                                    PlacementStrategy strategy) {
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (strategy == PlacementStrategy::kGreedyBySize) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  }  // kBestFit: buffers are created in execution order already
  return order;
}

class Planner {
 public:
  Planner(const model::Graph& graph, const ShapeInferenceResult& shapes,
          const MemoryPlanOptions& options)
      : graph_(graph), shapes_(shapes), options_(options) {}

  MemoryPlan run() {
    compute_last_reads();
    for (size_t step = 0; step < graph_.nodes.size(); ++step) {
      plan_node(graph_.nodes[step], static_cast<int>(step));
    }
    plan_.strategy = options_.strategy;
    plan_.buffers = static_cast<int64_t>(buffers_.size());
    plan_.arena_bytes = place_buffers(buffers_, placement_order(buffers_, options_.strategy));
    for (TensorPlacement& placement : plan_.placements) {
      placement.offset = buffers_[placement.buffer].offset;
    }
    return std::move(plan_);
  }

 private:
  void compute_last_reads() {
    for (size_t step = 0; step < graph_.nodes.size(); ++step) {
      const model::Node& node = graph_.nodes[step];
      for (const std::string& input : node.inputs) last_read_[input] = static_cast<int>(step);
      std::unordered_set<std::string> outer;
      for (const auto& [key, attribute] : node.attributes) {
        if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
          collect_outer_reads(*attribute.g, outer);
        }
      }
      for (const std::string& name : outer) last_read_[name] = static_cast<int>(step);
    }
    for (const model::ValueInfo& output : graph_.outputs) graph_outputs_.insert(output.name);
  }

  // The size in bytes of a value the planner may place, or -1.
  int64_t plannable_bytes(const std::string& name) const {
    if (name.empty() || graph_outputs_.count(name) != 0) return -1;
    if (shapes_.known_values.count(name) != 0) return -1;
    const model::ValueInfo* info = shapes_.find_resolved(name);
    if (info == nullptr || info->dtype == DataType::kUndefined ||
        info->dtype == DataType::kString) {
      return -1;
    }
    return shape_numel(info->static_shape()) * static_cast<int64_t>(dtype_size(info->dtype));
  }

  int last_read(const std::string& name, int step) const {
    auto it = last_read_.find(name);
    return it == last_read_.end() ? step : std::max(step, it->second);
  }

  void plan_node(const model::Node& node, int step) {
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      const int64_t bytes = plannable_bytes(name);
      if (bytes < 0) continue;
      const int end = last_read(name, step);
      if (i == 0 && try_share(node, name, bytes, step, end)) continue;
      Buffer buffer;
      buffer.bytes = align_up(bytes, options_.alignment);
      buffer.start = step;
      buffer.end = end;
      buffers_.push_back(buffer);
      add_placement(name, TensorPlacement::Kind::kOwn, bytes, step, end,
                    static_cast<int>(buffers_.size() - 1));
      plan_.naive_bytes += buffer.bytes;
    }
  }

  // A view joins its input's buffer; an in-place result takes over the
  // buffer of an input of its shape that dies here.
  bool try_share(const model::Node& node, const std::string& name, int64_t bytes, int step,
                 int end) {
    if (is_view_op(node.op_type) && !node.inputs.empty()) {
      auto it = placement_of_.find(node.inputs[0]);
      if (it == placement_of_.end()) return false;
      const TensorPlacement input = plan_.placements[it->second];
      if (input.bytes != bytes) return false;
      join(input.buffer, name, TensorPlacement::Kind::kView, bytes, step, end);
      ++plan_.views;
      return true;
    }
    if (!options_.in_place) return false;
    const model::ValueInfo* output = shapes_.find_resolved(name);
    for (size_t k : in_place_inputs(node)) {
      auto it = placement_of_.find(node.inputs[k]);
      if (it == placement_of_.end()) continue;
      const TensorPlacement input = plan_.placements[it->second];
      const model::ValueInfo* input_info = shapes_.find_resolved(node.inputs[k]);
      if (input.bytes != bytes || buffers_[input.buffer].end != step ||
          input_info->static_shape() != output->static_shape() ||
          (!is_in_place_op(node.op_type) && read_elsewhere(node, k, input.buffer))) {
        continue;
      }
      join(input.buffer, name, TensorPlacement::Kind::kInPlace, bytes, step, end);
      plan_.naive_bytes += align_up(bytes, options_.alignment);
      ++plan_.in_place;
      return true;
    }
    return false;
  }

  // Whether an input of `node` other than `k` lives in `buffer` (the same
  // value, or a view of it): the output must not overwrite what the node
  // still reads.
  bool read_elsewhere(const model::Node& node, size_t k, int buffer) const {
    for (size_t other = 0; other < node.inputs.size(); ++other) {
      if (other == k || node.inputs[other].empty()) continue;
      if (node.inputs[other] == node.inputs[k]) return true;
      auto it = placement_of_.find(node.inputs[other]);
      if (it != placement_of_.end() && plan_.placements[it->second].buffer == buffer) return true;
    }
    return false;
  }

  void join(int buffer, const std::string& name, TensorPlacement::Kind kind, int64_t bytes,
            int step, int end) {
    buffers_[buffer].end = std::max(buffers_[buffer].end, end);
    add_placement(name, kind, bytes, step, end, buffer);
  }

  void add_placement(const std::string& name, TensorPlacement::Kind kind, int64_t bytes, int step,
                     int end, int buffer) {
    TensorPlacement placement;
    placement.value = name;
    placement.kind = kind;
    placement.bytes = bytes;
    placement.first_step = step;
    placement.last_step = end;
    placement.buffer = buffer;
    placement_of_[name] = plan_.placements.size();
    plan_.placements.push_back(std::move(placement));
  }

  const model::Graph& graph_;
  const ShapeInferenceResult& shapes_;
  const MemoryPlanOptions& options_;
  std::unordered_map<std::string, int> last_read_;
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_map<std::string, size_t> placement_of_;
  std::vector<Buffer> buffers_;
  MemoryPlan plan_;
};

}  // namespace

const char* placement_strategy_name(PlacementStrategy strategy) {
  return strategy == PlacementStrategy::kGreedyBySize ? "greedy-by-size" : "best-fit";
}

bool is_view_op(const std::string& op_type) {
  static const std::set<std::string> kViews = {"Reshape",   "Flatten",  "Squeeze",
                                               "Unsqueeze", "Identity", "Dropout"};
  return kViews.count(op_type) != 0;
}

bool is_in_place_op(const std::string& op_type) {
  static const std::set<std::string> kElementwise = {
      "Relu",     "Sigmoid",    "Tanh", "Erf",         "Exp",       "Log",       "Neg",  "Abs",
      "Sqrt",     "Reciprocal", "Elu",  "HardSigmoid", "HardSwish", "LeakyRelu", "Selu", "Softplus",
      "Softsign", "Clip",       "Add",  "Sub",         "Mul",       "Div"};
  return kElementwise.count(op_type) != 0;
}

std::vector<size_t> in_place_inputs(const model::Node& node) {
  // A fused convolution's residual Z is read element for element into the
  // output (oneDNN's sum post-op adds the convolution to what the output
  // holds), so Z's buffer can become the output; Z is input 3.
  if (node.op_type == "FusedConv" && node.domain == "ai.inferlab") {
    constexpr size_t kResidual = 3;
    if (node.inputs.size() > kResidual && !node.inputs[kResidual].empty()) return {kResidual};
    return {};
  }
  if (!is_in_place_op(node.op_type)) return {};
  return node.inputs.size() >= 2 ? std::vector<size_t>{0, 1} : std::vector<size_t>{0};
}

const TensorPlacement* MemoryPlan::find(const std::string& value) const {
  for (const TensorPlacement& placement : placements) {
    if (placement.value == value) return &placement;
  }
  return nullptr;
}

MemoryPlan plan_memory(const model::Graph& graph, const ShapeInferenceResult& shapes,
                       const MemoryPlanOptions& options) {
  return Planner(graph, shapes, options).run();
}

}  // namespace inferlab::runtime
