// One optimization pass over the main graph, and what every pass is given.
// Passes rewrite model::Graph in place and say what they changed, so the
// optimization log ("fused Conv+BatchNormalization+Relu x49") is built from
// the passes' own words. docs/optimizer.md lists every pass and its level.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::optimizer {

// What a pass changed: counted changes by kind ("fused Conv+BatchNormalization+Relu"
// -> 49, "removed Identity" -> 3) and, per kind, the ONNX node names involved
// (printed with --verbose).
struct PassStats {
  std::map<std::string, int64_t> changes;
  std::map<std::string, std::vector<std::string>> nodes;

  void record(const std::string& kind, const std::string& node_name) {
    ++changes[kind];
    nodes[kind].push_back(node_name);
  }
  bool changed() const { return !changes.empty(); }
};

// Given to every pass. `shapes` is the shape inference of the model as it is
// when the pass starts (the pass manager re-infers after any pass that
// changed the graph), so passes can ask for static shapes and known values.
struct PassContext {
  model::Model& model;
  const kernels::OpRegistry& registry;
  const runtime::ShapeInferenceResult& shapes;
  int64_t max_tensor_bytes = int64_t{4} << 30;

  model::Graph& graph() { return *model.graph; }
  // The static shape of `value`, or null when it is not known before running.
  const model::ValueInfo* static_info(const std::string& value) const {
    return shapes.find_resolved(value);
  }
  // The contents of `value` when known before running (initializers that are
  // not overridable, constants, values folded from them), else null.
  const Tensor* known_value(const std::string& value) const {
    // Initializers a caller may replace at run time are not constants.
    for (const model::ValueInfo& overridable : model.graph->overridable_initializers)
      if (overridable.name == value) return nullptr;
    auto it = shapes.known_values.find(value);
    return it == shapes.known_values.end() ? nullptr : &it->second;
  }
};

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  // Short, stable name used in the log and docs: "constant_folding".
  virtual const char* name() const = 0;
  // The lowest optimization level that runs this pass (1, 2 or 3).
  virtual int level() const = 0;
  // Rewrites the graph; records every change in `stats`. Must keep the
  // graph valid: topological order, every value produced once, graph
  // outputs keep their names, results unchanged within FP32 rounding.
  virtual void run(PassContext& context, PassStats& stats) = 0;
};

}  // namespace inferlab::optimizer
