// Export of the transformer fusions' ai.inferlab operators (fused_lowering.h).
// Only ai.inferlab::LayerNormalization exists (the com.microsoft operators
// the fusions emit are ONNX Runtime's own and are written unchanged); it is
// written back decomposed into default-domain operators that any opset
// below 17 has:
//   mean = ReduceMean(X, axes); d = X - mean; var = ReduceMean(d * d, axes)
//   std = Sqrt(var + epsilon); Y = d / std * Scale (+ B)
// with Mean = mean and InvStdDev = Reciprocal(std) when those are read.
#include "inferlab/optimizer/fused_lowering.h"
#include "inferlab/optimizer/transformer_match.h"

namespace inferlab::optimizer {
namespace {

using transformer::int_attribute;
using transformer::ints_attribute;

// The reduced axes: axis .. rank-1, negative so the rank need not be known
// when `axis` is negative.
std::vector<int64_t> reduced_axes(GraphEditor& editor, const model::Node& node) {
  auto it = node.attributes.find("axis");
  int64_t axis = it == node.attributes.end() ? -1 : it->second.i;
  if (axis >= 0) {
    const model::ValueInfo* info = editor.graph().find_value_info(node.inputs[0]);
    if (info == nullptr || !info->has_shape) {
      fail(ErrorCode::kUnsupported,
           "cannot export LayerNormalization node '{}': axis {} needs the rank of input '{}'",
           node.name, axis, node.inputs[0]);
    }
    axis -= static_cast<int64_t>(info->dims.size());
  }
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < 0; ++a) axes.push_back(a);
  return axes;
}

void lower_layer_normalization(GraphEditor& editor, int index) {
  const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
  const std::vector<int64_t> axes = reduced_axes(editor, node);
  auto eps_it = node.attributes.find("epsilon");
  const float epsilon = eps_it == node.attributes.end() ? 1e-5f : eps_it->second.f;
  const std::string base = node.name;
  auto value = [&](const char* suffix) { return editor.fresh_name(base + suffix); };
  auto reduce = [&](const std::string& in, const std::string& out) {
    model::Node r{value("/ReduceMean"), "ReduceMean", "", {in}, {out}, {}};
    r.attributes["axes"] = ints_attribute(axes);
    r.attributes["keepdims"] = int_attribute(1);
    return r;
  };
  const bool wants_mean = node.outputs.size() > 1 && !node.outputs[1].empty();
  const bool wants_inv_std = node.outputs.size() > 2 && !node.outputs[2].empty();
  const std::string mean = value("_mean");
  const std::string centered = value("_centered");
  const std::string squared = value("_squared");
  const std::string var = value("_var");
  const std::string eps = editor.add_constant(base + "_epsilon", Tensor::scalar<float>(epsilon));
  const std::string shifted = value("_var_eps");
  const std::string stddev = value("_std");
  const std::string normalized = value("_normalized");
  const bool has_bias = node.inputs.size() > 2 && !node.inputs[2].empty();
  const std::string scaled = has_bias ? value("_scaled") : node.outputs[0];
  std::vector<model::Node> nodes{
      reduce(node.inputs[0], mean),
      {value("/Sub"), "Sub", "", {node.inputs[0], mean}, {centered}, {}},
      {value("/Mul"), "Mul", "", {centered, centered}, {squared}, {}},
      reduce(squared, var),
      {value("/Add"), "Add", "", {var, eps}, {shifted}, {}},
      {value("/Sqrt"), "Sqrt", "", {shifted}, {stddev}, {}},
      {value("/Div"), "Div", "", {centered, stddev}, {normalized}, {}},
      {value("/Mul_scale"), "Mul", "", {normalized, node.inputs[1]}, {scaled}, {}}};
  if (has_bias) {
    nodes.push_back(
        {value("/Add_bias"), "Add", "", {scaled, node.inputs[2]}, {node.outputs[0]}, {}});
  }
  if (wants_inv_std) {
    nodes.push_back({value("/Reciprocal"), "Reciprocal", "", {stddev}, {node.outputs[2]}, {}});
  }
  if (wants_mean) {
    nodes.push_back({value("/Identity"), "Identity", "", {mean}, {node.outputs[1]}, {}});
  }
  // The node's outputs keep their names: take them over directly.
  model::Node& retired = editor.graph().nodes[static_cast<size_t>(index)];
  for (std::string& output : retired.outputs) {
    if (!output.empty()) output = editor.fresh_name(output + "_lowered");
  }
  editor.remove_node(index);
  for (model::Node& n : nodes) editor.add_node(std::move(n));
}

}  // namespace

bool lower_transformer_family(GraphEditor& editor, int index) {
  const model::Node& node = editor.graph().nodes[static_cast<size_t>(index)];
  if (node.domain != "ai.inferlab" || node.op_type != "LayerNormalization") return false;
  lower_layer_normalization(editor, index);
  return true;
}

}  // namespace inferlab::optimizer
