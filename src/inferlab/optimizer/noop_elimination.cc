// noop_elimination (level 1): removes nodes whose output provably equals
// their first input: Identity; Dropout at inference (mask unused, training
// mode absent or constant false); and Reshape, Expand, Slice, Cast,
// Transpose and Pad when the static shapes, attributes and known values
// show they change nothing. A graph output keeps its name: the value is
// then renamed at its producer instead (impossible when it comes straight
// from a graph input or initializer; the node then stays).
#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/pass_util.h"

namespace inferlab::optimizer {

namespace {

bool has_input(const model::Node& node, size_t index) {
  return index < node.inputs.size() && !node.inputs[index].empty();
}

// Static shapes of the node's first input and first output, both known and equal.
bool same_static_shape(const PassContext& context, const model::Node& node) {
  const model::ValueInfo* in = context.static_info(node.inputs[0]);
  const model::ValueInfo* out = context.static_info(node.outputs[0]);
  return in && out && in->dtype == out->dtype && in->static_shape() == out->static_shape();
}

bool all_equal(const std::vector<int64_t>& values, int64_t expected) {
  for (int64_t value : values) {
    if (value != expected) return false;
  }
  return true;
}

class NoopElimination : public GraphPass {
 public:
  const char* name() const override { return "noop_elimination"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const model::Node& node = context.graph().nodes[i];
      if (node.inputs.empty() || node.outputs.empty() || node.inputs[0].empty()) continue;
      if (!(node.domain.empty() || node.domain == "ai.onnx")) continue;
      if (!is_noop(context, editor, node)) continue;
      if (!can_bypass(editor, node.outputs[0], node.inputs[0])) continue;
      const std::string kind = "removed " + node.op_type;
      const std::string node_name = node.name;
      bypass_node(editor, static_cast<int>(i), node.outputs[0], node.inputs[0]);
      stats.record(kind, node_name);
    }
    if (stats.changed()) editor.compact();
  }

 private:
  bool is_noop(const PassContext& context, const GraphEditor& editor,
               const model::Node& node) const {
    const std::string& op = node.op_type;
    if (op == "Identity") return node.outputs.size() == 1;
    if (op == "Dropout") return is_inference_dropout(editor, node);
    if (op == "Reshape" || op == "Expand") return same_static_shape(context, node);
    if (op == "Cast") return is_noop_cast(context, node);
    if (op == "Transpose") return is_noop_transpose(context, node);
    if (op == "Pad") return same_static_shape(context, node) && pads_all_zero(editor, node);
    if (op == "Slice") return same_static_shape(context, node) && steps_positive(editor, node);
    return false;
  }

  static bool is_inference_dropout(const GraphEditor& editor, const model::Node& node) {
    if (node.outputs.size() > 1 && !node.outputs[1].empty() &&
        editor.use_count(node.outputs[1]) > 0) {
      return false;
    }
    if (!has_input(node, 2)) return true;  // training_mode defaults to false
    // Constants are folded into initializers before this pass runs.
    const Tensor* training = editor.constant(node.inputs[2]);
    return training != nullptr && training->numel() == 1 && training->element_as_double(0) == 0;
  }

  static bool is_noop_cast(const PassContext& context, const model::Node& node) {
    auto to = node.attributes.find("to");
    if (to == node.attributes.end()) return false;
    auto in = context.shapes.values.find(node.inputs[0]);
    if (in == context.shapes.values.end() || in->second.dtype == DataType::kUndefined) {
      return false;
    }
    return static_cast<int64_t>(in->second.dtype) == to->second.i;
  }

  static bool is_noop_transpose(const PassContext& context, const model::Node& node) {
    const model::ValueInfo* in = context.static_info(node.inputs[0]);
    auto perm = node.attributes.find("perm");
    if (perm == node.attributes.end()) return in != nullptr && in->dims.size() <= 1;
    const std::vector<int64_t>& axes = perm->second.ints;
    for (size_t axis = 0; axis < axes.size(); ++axis) {
      if (axes[axis] != static_cast<int64_t>(axis)) return false;
    }
    return true;
  }

  static bool pads_all_zero(const GraphEditor& editor, const model::Node& node) {
    auto attribute = node.attributes.find("pads");
    if (attribute != node.attributes.end()) return all_equal(attribute->second.ints, 0);
    if (!has_input(node, 1)) return false;
    const Tensor* pads = editor.constant(node.inputs[1]);
    return pads != nullptr && all_equal(pads->to_int64_vector(), 0);
  }

  static bool steps_positive(const GraphEditor& editor, const model::Node& node) {
    if (node.attributes.count("starts")) return true;  // Slice-1 has no steps
    if (!has_input(node, 4)) return true;
    const Tensor* steps = editor.constant(node.inputs[4]);
    if (steps == nullptr) return false;
    for (int64_t step : steps->to_int64_vector()) {
      if (step <= 0) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_noop_elimination_pass() {
  return std::make_unique<NoopElimination>();
}

}  // namespace inferlab::optimizer
