// residual_add_fusion (level 2): Add(conv_output, other) — and the
// activation after it — fused into the Conv as FusedConv with Z = other, when
// the Conv output has no other reader and `other` has exactly the Conv
// output's static shape (the fused kernel never broadcasts Z).
#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

bool constant_weights(GraphEditor& editor, const model::Node& conv) {
  const std::string bias = input_or_empty(conv, 2);
  return editor.constant(input_or_empty(conv, 1)) != nullptr &&
         (bias.empty() || editor.constant(bias) != nullptr);
}

bool same_static_type(const PassContext& context, const std::string& a, const std::string& b) {
  const model::ValueInfo* ia = context.static_info(a);
  const model::ValueInfo* ib = context.static_info(b);
  const std::optional<Shape> sa = static_shape(context, a);
  return ia != nullptr && ib != nullptr && ia->dtype == ib->dtype && sa &&
         sa == static_shape(context, b);
}

class ResidualAddFusionPass : public GraphPass {
 public:
  explicit ResidualAddFusionPass(std::shared_ptr<FusionLabels> labels)
      : labels_(std::move(labels)) {}
  const char* name() const override { return "residual_add_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    rewrite_each_node(context, editor,
                      [&](int index) { return try_fuse(context, editor, index, stats); });
  }

 private:
  // The operand of `add` that a fusable Conv produces (its index), or -1.
  int conv_operand(PassContext& context, GraphEditor& editor, const model::Node& add) {
    for (size_t k = 0; k < 2; ++k) {
      const std::string& value = add.inputs[k];
      const std::string& other = add.inputs[1 - k];
      const int producer = editor.producer(value);
      if (value == other || producer < 0 || editor.is_removed(producer)) continue;
      const model::Node& conv = editor.graph().nodes[static_cast<size_t>(producer)];
      if (!is_plain_conv(conv) || conv.outputs.size() != 1 || !constant_weights(editor, conv)) {
        continue;
      }
      if (!single_reader(editor, value) || !is_float_value(context, value)) continue;
      if (!same_static_type(context, value, other) ||
          !same_static_type(context, value, add.outputs[0])) {
        continue;
      }
      return static_cast<int>(k);
    }
    return -1;
  }

  bool try_fuse(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node add = editor.graph().nodes[static_cast<size_t>(index)];
    if (!is_op(add, "", "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    const int k = conv_operand(context, editor, add);
    if (k < 0) return false;
    const int conv_index = editor.producer(add.inputs[static_cast<size_t>(k)]);
    const model::Node conv = editor.graph().nodes[static_cast<size_t>(conv_index)];
    const std::optional<ActivationMatch> activation =
        match_activation(context, editor, add.outputs[0]);
    model::Node fused = conv;
    fused.op_type = "FusedConv";
    fused.domain = kInferLabDomain;
    fused.inputs.resize(4);
    fused.inputs[3] = add.inputs[static_cast<size_t>(1 - k)];
    std::vector<std::string> names = covered_names(conv);
    names.push_back(add.name);
    std::vector<int> covered{conv_index, index};
    std::string label = label_of(*labels_, conv) + "+Add";
    fused.outputs = {add.outputs[0]};
    if (activation) {
      set_activation(fused, *activation);
      for (int node : activation->nodes) {
        names.push_back(editor.graph().nodes[static_cast<size_t>(node)].name);
        covered.push_back(node);
      }
      label += "+" + activation->label;
      fused.outputs = {activation->output};
    }
    set_strings(fused, "fused_nodes", std::move(names));
    (*labels_)[conv.name] = label;
    replace_nodes(editor, covered, std::move(fused));
    stats.record("fused " + label, conv.name);
    return true;
  }

  std::shared_ptr<FusionLabels> labels_;
};

}  // namespace

std::unique_ptr<GraphPass> make_residual_add_fusion_pass(std::shared_ptr<FusionLabels> labels) {
  return std::make_unique<ResidualAddFusionPass>(std::move(labels));
}

}  // namespace inferlab::optimizer::conv_fusion
