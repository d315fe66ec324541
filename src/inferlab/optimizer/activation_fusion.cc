// activation_fusion (level 2): Conv, Gemm and MatMul (and the fused nodes of
// this family that have no activation yet) followed by an activation become
// FusedConv / FusedGemm / FusedMatMul with `activation` set. A MatMul
// followed by Add of a constant 1-D bias over its last dim absorbs the Add:
// as a Gemm (FusedGemm) when A and B are 2-D, as FusedMatMul otherwise.
#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

bool constant_or_absent(GraphEditor& editor, const std::string& value) {
  return value.empty() || editor.constant(value) != nullptr;
}

// The fused op type `node` becomes when it takes an activation, or "" when
// it cannot (already activated, non-constant weights, not of this family).
std::string fused_op_for(GraphEditor& editor, const model::Node& node) {
  const bool fused = node.domain == kInferLabDomain;
  if (fused && has_activation(node)) return "";
  const bool weights = editor.constant(input_or_empty(node, 1)) != nullptr &&
                       constant_or_absent(editor, input_or_empty(node, 2));
  if (!weights || node.outputs.size() != 1) return "";
  if (is_op(node, "", "Conv") || is_op(node, kInferLabDomain, "FusedConv")) return "FusedConv";
  if (is_op(node, "", "Gemm") || is_op(node, kInferLabDomain, "FusedGemm")) return "FusedGemm";
  if (is_op(node, kInferLabDomain, "FusedMatMul")) return "FusedMatMul";
  return "";
}

// Rank of `value` when known (dims may be symbolic), else -1.
int64_t known_rank(const PassContext& context, const std::string& value) {
  const model::ValueInfo* info = context.static_info(value);
  return info != nullptr && info->has_shape ? static_cast<int64_t>(info->dims.size()) : -1;
}

// Adds the activation's nodes to `fused` and `covered` (an activation fused
// earlier, e.g. HardSwish or Gelu, by the ONNX nodes it covers).
void absorb(GraphEditor& editor, const ActivationMatch& activation, model::Node& fused,
            std::vector<std::string>& names, std::vector<int>& covered) {
  set_activation(fused, activation);
  for (int node : activation.nodes) {
    for (std::string& name : covered_names(editor.graph().nodes[static_cast<size_t>(node)])) {
      names.push_back(std::move(name));
    }
    covered.push_back(node);
  }
  fused.outputs = {activation.output};
}

class ActivationFusionPass : public GraphPass {
 public:
  explicit ActivationFusionPass(std::shared_ptr<FusionLabels> labels)
      : labels_(std::move(labels)) {}
  const char* name() const override { return "activation_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    rewrite_each_node(context, editor, [&](int index) {
      return is_op(editor.graph().nodes[index], "", "MatMul")
                 ? try_matmul(context, editor, index, stats)
                 : try_activation(context, editor, index, stats);
    });
  }

 private:
  void commit(GraphEditor& editor, const model::Node& base, model::Node fused,
              std::vector<std::string> names, const std::vector<int>& covered,
              const std::string& label, PassStats& stats) {
    set_strings(fused, "fused_nodes", std::move(names));
    (*labels_)[base.name] = label;
    replace_nodes(editor, covered, std::move(fused));
    stats.record("fused " + label, base.name);
  }

  bool try_activation(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
    const std::string op = fused_op_for(editor, node);
    if (op.empty() || !is_float_value(context, node.outputs[0])) return false;
    const std::optional<ActivationMatch> activation =
        match_activation(context, editor, node.outputs[0]);
    if (!activation) return false;
    model::Node fused = node;
    fused.op_type = op;
    fused.domain = kInferLabDomain;
    std::vector<std::string> names = covered_names(node);
    std::vector<int> covered{index};
    absorb(editor, *activation, fused, names, covered);
    const std::string label = label_of(*labels_, node) + "+" + activation->label;
    commit(editor, node, std::move(fused), std::move(names), covered, label, stats);
    return true;
  }

  // The Add reading `value` with a constant 1-D bias of `columns` values, or -1.
  int bias_add(GraphEditor& editor, const std::string& value, int64_t columns, std::string& bias) {
    const int reader = only_reader(editor, value);
    if (reader < 0) return -1;
    const model::Node& add = editor.graph().nodes[static_cast<size_t>(reader)];
    if (!is_op(add, "", "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return -1;
    const std::string& other = add.inputs[0] == value ? add.inputs[1] : add.inputs[0];
    const Tensor* constant = editor.constant(other);
    if (other == value || constant == nullptr || constant->dtype() != DataType::kFloat32 ||
        constant->shape() != Shape{columns}) {
      return -1;
    }
    bias = other;
    return reader;
  }

  bool try_matmul(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
    const Tensor* b = editor.constant(input_or_empty(node, 1));
    const int64_t a_rank = known_rank(context, node.inputs[0]);
    if (b == nullptr || b->rank() < 2 || a_rank < 2 || node.outputs.size() != 1 ||
        !is_float_value(context, node.outputs[0])) {
      return false;
    }
    std::string bias;
    const int add = bias_add(editor, node.outputs[0], b->shape().back(), bias);
    std::string result = node.outputs[0];
    if (add >= 0) result = editor.graph().nodes[static_cast<size_t>(add)].outputs[0];
    const std::optional<ActivationMatch> activation = match_activation(context, editor, result);
    if (add < 0 && !activation) return false;
    const bool as_gemm = add >= 0 && a_rank == 2 && b->rank() == 2;
    model::Node fused;
    fused.name = node.name;
    fused.op_type = as_gemm ? "FusedGemm" : "FusedMatMul";
    fused.domain = kInferLabDomain;
    fused.inputs = {node.inputs[0], node.inputs[1]};
    if (add >= 0) fused.inputs.push_back(bias);
    fused.outputs = {result};
    std::vector<std::string> names{node.name};
    std::vector<int> covered{index};
    std::string label = "MatMul";
    if (add >= 0) {
      names.push_back(editor.graph().nodes[static_cast<size_t>(add)].name);
      covered.push_back(add);
      label += "+Add";
    }
    if (activation) {
      absorb(editor, *activation, fused, names, covered);
      label += "+" + activation->label;
    }
    const std::string kind = as_gemm ? label + " (as Gemm)" : label;
    commit(editor, node, std::move(fused), std::move(names), covered, kind, stats);
    if (as_gemm) (*labels_)[node.name] = label;
    return true;
  }

  std::shared_ptr<FusionLabels> labels_;
};

}  // namespace

std::unique_ptr<GraphPass> make_activation_fusion_pass(std::shared_ptr<FusionLabels> labels) {
  return std::make_unique<ActivationFusionPass>(std::move(labels));
}

}  // namespace inferlab::optimizer::conv_fusion
