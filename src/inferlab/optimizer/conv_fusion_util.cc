// Activation matching and the fused-node edits of the convolution fusions.
#include "inferlab/optimizer/conv_fusion_util.h"

#include <algorithm>
#include <limits>

#include "inferlab/optimizer/pass_util.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

// A scalar float constant (initializer or folded value) read by `node` as
// input `index`; `fallback` when the input is absent; nullopt otherwise.
std::optional<float> scalar_input(const PassContext& context, GraphEditor& editor,
                                  const model::Node& node, size_t index, float fallback) {
  const std::string name = input_or_empty(node, index);
  if (name.empty()) return fallback;
  const Tensor* value = editor.constant(name);
  if (value == nullptr) value = context.known_value(name);
  if (value == nullptr || value->dtype() != DataType::kFloat32 || value->numel() != 1) {
    return std::nullopt;
  }
  return value->data<float>()[0];
}

float float_attr(const model::Node& node, const char* key, float fallback) {
  auto it = node.attributes.find(key);
  if (it == node.attributes.end() || it->second.kind != model::Attribute::Kind::kFloat) {
    return fallback;
  }
  return it->second.f;
}

std::string string_attr(const model::Node& node, const char* key) {
  auto it = node.attributes.find(key);
  if (it == node.attributes.end() || it->second.kind != model::Attribute::Kind::kString) return "";
  return it->second.s;
}

std::optional<std::vector<float>> clip_bounds(const PassContext& context, GraphEditor& editor,
                                              const model::Node& node) {
  const float lowest = std::numeric_limits<float>::lowest();
  const float highest = std::numeric_limits<float>::max();
  if (node_opset(context, node) < 11) {
    return std::vector<float>{float_attr(node, "min", lowest), float_attr(node, "max", highest)};
  }
  const std::optional<float> lo = scalar_input(context, editor, node, 1, lowest);
  const std::optional<float> hi = scalar_input(context, editor, node, 2, highest);
  if (!lo || !hi) return std::nullopt;
  return std::vector<float>{*lo, *hi};
}

// The activation of one default-domain, com.microsoft or ai.inferlab
// HardSwish node; kind "" when the node is none of them.
ActivationMatch describe_single(const PassContext& context, GraphEditor& editor,
                                const model::Node& node) {
  ActivationMatch match;
  const std::string& op = node.op_type;
  if (is_op(node, "com.microsoft", "Gelu")) {
    match.kind = "Gelu";
  } else if (is_op(node, "com.microsoft", "FastGelu") && input_or_empty(node, 1).empty()) {
    match.kind = "GeluTanh";
  } else if (is_op(node, kInferLabDomain, "HardSwish")) {  // ONNX's, below opset 14
    match.kind = "HardSwish";
  } else if (!node.domain.empty() && node.domain != "ai.onnx") {
    return match;
  } else if (op == "Relu" || op == "Sigmoid" || op == "Tanh" || op == "HardSwish") {
    match.kind = op;
  } else if (op == "LeakyRelu") {
    match.kind = op;
    match.params = {float_attr(node, "alpha", 0.01f)};
  } else if (op == "HardSigmoid") {
    match.kind = op;
    match.params = {float_attr(node, "alpha", 0.2f), float_attr(node, "beta", 0.5f)};
  } else if (op == "Clip") {
    std::optional<std::vector<float>> bounds = clip_bounds(context, editor, node);
    if (!bounds) return match;
    match.kind = op;
    match.params = *bounds;
  } else if (op == "Gelu") {  // opset 20
    const std::string approximate = string_attr(node, "approximate");
    if (approximate == "tanh") match.kind = "GeluTanh";
    if (approximate.empty() || approximate == "none") match.kind = "Gelu";
  }
  match.label = match.kind.empty() ? "" : op;
  return match;
}

std::optional<ActivationMatch> match_silu(GraphEditor& editor, const std::string& value,
                                          const std::vector<int>& readers) {
  const model::Graph& graph = editor.graph();
  for (int sigmoid_index : readers) {
    const model::Node& sigmoid = graph.nodes[static_cast<size_t>(sigmoid_index)];
    if (!is_op(sigmoid, "", "Sigmoid") || sigmoid.outputs.size() != 1) continue;
    const std::string& gate = sigmoid.outputs[0];
    const int mul_index = only_reader(editor, gate);
    if (mul_index < 0 || std::find(readers.begin(), readers.end(), mul_index) == readers.end()) {
      continue;
    }
    const model::Node& mul = graph.nodes[static_cast<size_t>(mul_index)];
    if (!is_op(mul, "", "Mul") || mul.inputs.size() != 2 || mul.outputs.size() != 1) continue;
    const bool operands = (mul.inputs[0] == value && mul.inputs[1] == gate) ||
                          (mul.inputs[1] == value && mul.inputs[0] == gate);
    if (!operands) continue;
    ActivationMatch match;
    match.kind = "SiLU";
    match.nodes = {sigmoid_index, mul_index};
    match.output = mul.outputs[0];
    match.label = "Sigmoid+Mul";
    return match;
  }
  return std::nullopt;
}

}  // namespace

bool is_op(const model::Node& node, const char* domain, const char* op_type) {
  const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
  const bool domain_matches = std::string(domain).empty() ? default_domain : node.domain == domain;
  return domain_matches && node.op_type == op_type;
}

bool has_activation(const model::Node& node) {
  auto it = node.attributes.find("activation");
  return it != node.attributes.end() && !it->second.s.empty();
}

bool is_plain_conv(const model::Node& node) {
  if (is_op(node, "", "Conv")) return true;
  return is_op(node, kInferLabDomain, "FusedConv") && !has_activation(node) &&
         input_or_empty(node, 3).empty();
}

std::string input_or_empty(const model::Node& node, size_t index) {
  return index < node.inputs.size() ? node.inputs[index] : std::string();
}

void rewrite_each_node(PassContext& context, GraphEditor& editor,
                       const std::function<bool(int)>& try_rewrite) {
  bool changed = false;
  const size_t count = editor.graph().nodes.size();
  for (size_t i = 0; i < count; ++i) {
    const int index = static_cast<int>(i);
    if (!editor.is_removed(index)) changed = try_rewrite(index) || changed;
  }
  if (!changed) return;
  editor.compact();
  editor.remove_unused_initializers();
  context.model.opsets[kInferLabDomain] = 1;
}

bool single_reader(GraphEditor& editor, const std::string& value) {
  return !editor.is_graph_output(value) && editor.use_count(value) == 1 &&
         editor.consumers(value).size() == 1;
}

int only_reader(GraphEditor& editor, const std::string& value) {
  return single_reader(editor, value) ? editor.consumers(value)[0] : -1;
}

bool is_float_value(const PassContext& context, const std::string& value) {
  const model::ValueInfo* info = context.static_info(value);
  return info != nullptr &&
         (info->dtype == DataType::kFloat32 || info->dtype == DataType::kFloat64);
}

std::optional<Shape> static_shape(const PassContext& context, const std::string& value) {
  const model::ValueInfo* info = context.static_info(value);
  if (info == nullptr || !info->has_shape || !info->is_static()) return std::nullopt;
  return info->static_shape();
}

std::optional<ActivationMatch> match_activation(const PassContext& context, GraphEditor& editor,
                                                const std::string& value) {
  if (editor.is_graph_output(value)) return std::nullopt;
  const std::vector<int>& readers = editor.consumers(value);
  const int uses = editor.use_count(value);
  if (uses == 2 && readers.size() == 2) return match_silu(editor, value, readers);
  if (uses != 1 || readers.size() != 1) return std::nullopt;
  const model::Node& node = editor.graph().nodes[readers[0]];
  if (node.inputs.empty() || node.inputs[0] != value) return std::nullopt;
  const size_t outputs = static_cast<size_t>(
      std::count_if(node.outputs.begin(), node.outputs.end(), [](auto& o) { return !o.empty(); }));
  if (outputs != 1 || node.outputs[0].empty()) return std::nullopt;
  ActivationMatch match = describe_single(context, editor, node);
  if (match.kind.empty()) return std::nullopt;
  match.nodes = {readers[0]};
  match.output = node.outputs[0];
  return match;
}

std::vector<std::string> covered_names(const model::Node& node) {
  auto it = node.attributes.find("fused_nodes");
  if (it != node.attributes.end() && !it->second.strings.empty()) return it->second.strings;
  return {node.name};
}

void set_strings(model::Node& node, const std::string& key, std::vector<std::string> values) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kStrings;
  attribute.strings = std::move(values);
  node.attributes[key] = std::move(attribute);
}

void set_activation(model::Node& node, const ActivationMatch& activation) {
  model::Attribute kind;
  kind.kind = model::Attribute::Kind::kString;
  kind.s = activation.kind;
  node.attributes["activation"] = std::move(kind);
  node.attributes.erase("activation_params");
  if (activation.params.empty()) return;
  model::Attribute params;
  params.kind = model::Attribute::Kind::kFloats;
  params.floats = activation.params;
  node.attributes["activation_params"] = std::move(params);
}

std::string label_of(const FusionLabels& labels, const model::Node& node) {
  if (node.domain != kInferLabDomain) return node.op_type;
  auto it = labels.find(node.name);
  if (it != labels.end()) return it->second;
  const std::string prefix = "Fused";
  return node.op_type.rfind(prefix, 0) == 0 ? node.op_type.substr(prefix.size()) : node.op_type;
}

int replace_nodes(GraphEditor& editor, const std::vector<int>& covered, model::Node fused) {
  // Covered nodes first write fresh, unread names, so they can be removed
  // while their old outputs still have readers (other covered nodes, or the
  // fused node's final output).
  for (int index : covered) {
    for (std::string& output : editor.graph().nodes[static_cast<size_t>(index)].outputs) {
      if (!output.empty()) output = editor.fresh_name(output + "_fused_away");
    }
  }
  for (int index : covered) editor.remove_node(index);
  return editor.add_node(std::move(fused));
}

std::optional<std::vector<float>> float_constant(GraphEditor& editor, const std::string& value) {
  const Tensor* tensor = editor.constant(value);
  if (tensor == nullptr || tensor->dtype() != DataType::kFloat32) return std::nullopt;
  const float* data = tensor->data<float>();
  return std::vector<float>(data, data + tensor->numel());
}

}  // namespace inferlab::optimizer::conv_fusion
