// Export of FusedConv, FusedGemm and FusedMatMul back to ONNX (see
// fused_lowering.h). ONNX Runtime's CPU com.microsoft FusedConv computes
// act(Conv(X, W, B) + Z) for float32 with the activations Relu, Tanh,
// Sigmoid, LeakyRelu, Clip and HardSigmoid (contrib_ops/cpu/fused_activation.cc;
// Z is copied into Y and MLAS adds it with Beta = 1 before the activation),
// exactly our semantics: those become FusedConv. Everything else is written
// decomposed: Conv/Gemm/MatMul, then Add (Z or bias), then the activation as
// default-domain nodes (HardSwish as x * HardSigmoid(x; 1/6, 0.5), valid at
// every opset; SiLU as Sigmoid + Mul) or ONNX Runtime's Gelu / FastGelu.
// ai.inferlab::HardSwish (ONNX's HardSwish below opset 14) is written the
// same way as that activation. The export driver adds the com.microsoft
// opset import.
#include <set>

#include "inferlab/kernels/fused/activation.h"
#include "inferlab/optimizer/conv_fusion_util.h"
#include "inferlab/optimizer/fused_lowering.h"

namespace inferlab::optimizer {
namespace {

using kernels::fused::ActivationKind;

model::Attribute float_attribute(float value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kFloat;
  attribute.f = value;
  return attribute;
}

struct Lowering {
  GraphEditor& editor;
  std::string name;  // the fused node's name (kept by its base node)

  void add(const std::string& op, const std::string& domain, std::vector<std::string> inputs,
           const std::string& output, model::AttributeMap attributes = {},
           const std::string& node_name = "") {
    model::Node node;
    node.name = node_name.empty() ? editor.fresh_name(name + "_" + op) : node_name;
    node.op_type = op;
    node.domain = domain;
    node.inputs = std::move(inputs);
    node.outputs = {output};
    node.attributes = std::move(attributes);
    editor.add_node(std::move(node));
  }

  // result = value * scale + shift as a Mul and an Add.
  void affine(float scale, float shift, const std::string& value, const std::string& result) {
    const std::string scaled = editor.fresh_name(result + "_scaled");
    add("Mul", "", {value, this->scalar("affine_scale", scale)}, scaled);
    add("Add", "", {scaled, this->scalar("affine_shift", shift)}, result);
  }

  std::string scalar(const std::string& base, float value) {
    return editor.add_constant(name + "_" + base, Tensor::scalar<float>(value));
  }

  // Writes act(input) to `output` as ONNX nodes.
  void activation(ActivationKind kind, const std::vector<float>& p, const std::string& input,
                  const std::string& output) {
    switch (kind) {
      case ActivationKind::kNone:
        return add("Identity", "", {input}, output);
      case ActivationKind::kRelu:
        return add("Relu", "", {input}, output);
      case ActivationKind::kSigmoid:
        return add("Sigmoid", "", {input}, output);
      case ActivationKind::kTanh:
        return add("Tanh", "", {input}, output);
      case ActivationKind::kLeakyRelu:
        return add("LeakyRelu", "", {input}, output, {{"alpha", float_attribute(p[0])}});
      case ActivationKind::kHardSigmoid:
        return add("HardSigmoid", "", {input}, output,
                   {{"alpha", float_attribute(p[0])}, {"beta", float_attribute(p[1])}});
      case ActivationKind::kClip:
        return add("Clip", "", {input, scalar("min", p[0]), scalar("max", p[1])}, output);
      case ActivationKind::kGelu:
        return add("Gelu", "com.microsoft", {input}, output);
      case ActivationKind::kGeluTanh:
        return add("FastGelu", "com.microsoft", {input}, output);
      case ActivationKind::kHardSwish: {
        const std::string gate = editor.fresh_name(output + "_gate");
        add("HardSigmoid", "", {input}, gate,
            {{"alpha", float_attribute(1.0f / 6.0f)}, {"beta", float_attribute(0.5f)}});
        return add("Mul", "", {input, gate}, output);
      }
      case ActivationKind::kSiLU: {
        const std::string gate = editor.fresh_name(output + "_gate");
        add("Sigmoid", "", {input}, gate);
        return add("Mul", "", {input, gate}, output);
      }
    }
  }
};

bool ort_fused_conv_activation(ActivationKind kind) {
  return kind == ActivationKind::kRelu || kind == ActivationKind::kTanh ||
         kind == ActivationKind::kSigmoid || kind == ActivationKind::kLeakyRelu ||
         kind == ActivationKind::kClip || kind == ActivationKind::kHardSigmoid;
}

// The base operator's attributes: everything but the fused ones.
model::AttributeMap base_attributes(const model::Node& node) {
  model::AttributeMap attributes = node.attributes;
  for (const char* key : {"activation", "activation_params", "activation_affine", "fused_nodes"}) {
    attributes.erase(key);
  }
  return attributes;
}

bool is_float64(GraphEditor& editor, const std::string& value) {
  const model::ValueInfo* info = editor.graph().find_value_info(value);
  return info != nullptr && info->dtype == DataType::kFloat64;
}

// Removes node `index`, whose output readers will read the replacement's.
void detach(GraphEditor& editor, int index) {
  for (std::string& output : editor.graph().nodes[static_cast<size_t>(index)].outputs) {
    if (!output.empty()) output = editor.fresh_name(output + "_lowered_away");
  }
  editor.remove_node(index);
}

}  // namespace

bool lower_conv_family(GraphEditor& editor, int index) {
  const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
  if (conv_fusion::is_op(node, conv_fusion::kInferLabDomain, "HardSwish")) {
    detach(editor, index);
    Lowering{editor, node.name}.activation(ActivationKind::kHardSwish, {}, node.inputs.at(0),
                                           node.outputs.at(0));
    return true;
  }
  static const std::set<std::string> kFamily{"FusedConv", "FusedGemm", "FusedMatMul"};
  if (node.domain != conv_fusion::kInferLabDomain || !kFamily.count(node.op_type)) return false;
  auto attr = node.attributes.find("activation");
  const std::string name = attr == node.attributes.end() ? "" : attr->second.s;
  const std::optional<ActivationKind> kind = kernels::fused::activation_kind_from_name(name);
  if (!kind) {
    fail(ErrorCode::kInvalidModel, "{} node '{}': unknown activation '{}'", node.op_type, node.name,
         name);
  }
  auto params_attr = node.attributes.find("activation_params");
  const std::vector<float> params =
      params_attr == node.attributes.end() ? std::vector<float>{} : params_attr->second.floats;
  if (params.size() != kernels::fused::activation_param_count(*kind)) {
    fail(ErrorCode::kInvalidModel, "{} node '{}': activation '{}' needs {} activation_params",
         node.op_type, node.name, name, kernels::fused::activation_param_count(*kind));
  }
  auto affine_attr = node.attributes.find("activation_affine");
  const std::vector<float> affine =
      affine_attr == node.attributes.end() ? std::vector<float>{} : affine_attr->second.floats;
  if (!affine.empty() && affine.size() != 2) {
    fail(ErrorCode::kInvalidModel, "{} node '{}': activation_affine takes [scale, shift]",
         node.op_type, node.name);
  }
  // The activation_affine, if any, comes last: Mul by the scale, Add of the shift.
  const std::string output =
      affine.empty() ? node.outputs.at(0) : editor.fresh_name(node.outputs.at(0) + "_activated");
  const std::string residual = conv_fusion::input_or_empty(node, 3);
  detach(editor, index);
  Lowering lowering{editor, node.name};
  const auto finish = [&] {
    if (!affine.empty()) lowering.affine(affine[0], affine[1], output, node.outputs.at(0));
    return true;
  };
  // Without activation, only a residual makes FusedConv worth more than Conv.
  const bool worth_fusing = *kind != ActivationKind::kNone || !residual.empty();
  if (node.op_type == "FusedConv" && worth_fusing &&
      (*kind == ActivationKind::kNone || ort_fused_conv_activation(*kind)) &&
      !is_float64(editor, output)) {
    model::AttributeMap attributes = base_attributes(node);
    if (*kind != ActivationKind::kNone) attributes["activation"] = node.attributes.at("activation");
    if (!params.empty()) attributes["activation_params"] = params_attr->second;
    lowering.add("FusedConv", "com.microsoft", node.inputs, output, attributes, node.name);
    return finish();
  }
  const std::string base_op = node.op_type.substr(std::string("Fused").size());
  const size_t base_inputs = base_op == "MatMul" ? 2 : 3;
  std::vector<std::string> inputs(node.inputs.begin(),
                                  node.inputs.begin() + std::min(base_inputs, node.inputs.size()));
  const std::string addend = base_op == "MatMul" ? conv_fusion::input_or_empty(node, 2) : residual;
  const bool has_activation = *kind != ActivationKind::kNone;
  std::string value =
      addend.empty() && !has_activation ? output : editor.fresh_name(output + "_base");
  lowering.add(base_op, "", inputs, value, base_attributes(node), node.name);
  if (!addend.empty()) {
    const std::string sum = has_activation ? editor.fresh_name(output + "_sum") : output;
    lowering.add("Add", "", {value, addend}, sum);
    value = sum;
  }
  if (has_activation) lowering.activation(*kind, params, value, output);
  return finish();
}

}  // namespace inferlab::optimizer
