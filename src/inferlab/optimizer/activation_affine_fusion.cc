// activation_affine_fusion (level 2): a Mul or Add by a scalar constant
// after a fused node that already applies an activation (FusedConv,
// FusedGemm, FusedMatMul) becomes part of it, as `activation_affine`
// [scale, shift]: y = act(...) * scale + shift. PaddleOCR's detection
// backbone (PP-LCNetV3) follows each activation with a learnable affine
// block, a scalar Mul then a scalar Add; those 48 elementwise passes over
// the feature maps become one more step of the convolution's epilogue (a
// oneDNN eltwise_linear post-op). Only scalars: a per-channel constant after
// the activation would need a binary post-op, and the pass never changes
// the output's shape.
#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

// The scalar float32 constant `value` when it cannot enlarge a tensor of
// rank `rank` (every dim 1, rank at most `rank`); nullopt otherwise.
std::optional<float> scalar_constant(GraphEditor& editor, const std::string& value, size_t rank) {
  const Tensor* c = editor.constant(value);
  if (c == nullptr || c->dtype() != DataType::kFloat32 || c->numel() != 1 ||
      static_cast<size_t>(c->rank()) > rank) {
    return std::nullopt;
  }
  return c->data<float>()[0];
}

std::vector<float> affine_of(const model::Node& node) {
  auto it = node.attributes.find("activation_affine");
  if (it == node.attributes.end()) return {1.0f, 0.0f};
  return it->second.floats;
}

class ActivationAffineFusionPass : public GraphPass {
 public:
  explicit ActivationAffineFusionPass(std::shared_ptr<FusionLabels> labels)
      : labels_(std::move(labels)) {}
  const char* name() const override { return "activation_affine_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    rewrite_each_node(context, editor,
                      [&](int index) { return try_fuse(context, editor, index, stats); });
  }

 private:
  bool try_fuse(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
    const bool mul = is_op(node, "", "Mul");
    if ((!mul && !is_op(node, "", "Add")) || node.inputs.size() != 2 || node.outputs.size() != 1) {
      return false;
    }
    for (size_t k = 0; k < 2; ++k) {
      const int producer = editor.producer(node.inputs[k]);
      if (producer < 0 || editor.is_removed(producer)) continue;
      const model::Node& fused = editor.graph().nodes[static_cast<size_t>(producer)];
      const std::optional<Shape> shape = static_shape(context, node.inputs[k]);
      if (fused.domain != kInferLabDomain || !has_activation(fused) || !shape ||
          fused.outputs.size() != 1 || !single_reader(editor, node.inputs[k]) ||
          static_shape(context, node.outputs[0]) != shape ||
          !is_float_value(context, node.outputs[0])) {
        continue;
      }
      const std::optional<float> c = scalar_constant(editor, node.inputs[1 - k], shape->size());
      if (!c) continue;
      fuse(editor, producer, index, *c, mul, stats);
      return true;
    }
    return false;
  }

  void fuse(GraphEditor& editor, int producer, int index, float c, bool mul, PassStats& stats) {
    const model::Node base = editor.graph().nodes[static_cast<size_t>(producer)];
    const model::Node& node = editor.graph().nodes[static_cast<size_t>(index)];
    model::Node fused = base;
    std::vector<float> affine = affine_of(base);
    if (mul) {
      affine = {affine[0] * c, affine[1] * c};
    } else {
      affine[1] += c;
    }
    fused.attributes["activation_affine"].kind = model::Attribute::Kind::kFloats;
    fused.attributes["activation_affine"].floats = affine;
    std::vector<std::string> names = covered_names(base);
    names.push_back(node.name);
    set_strings(fused, "fused_nodes", std::move(names));
    fused.outputs = node.outputs;
    const std::string label = label_of(*labels_, base) + "+" + node.op_type;
    (*labels_)[base.name] = label;
    stats.record("fused " + label, base.name);
    replace_nodes(editor, {producer, index}, std::move(fused));
  }

  std::shared_ptr<FusionLabels> labels_;
};

}  // namespace

std::unique_ptr<GraphPass> make_activation_affine_fusion_pass(
    std::shared_ptr<FusionLabels> labels) {
  return std::make_unique<ActivationAffineFusionPass>(std::move(labels));
}

}  // namespace inferlab::optimizer::conv_fusion
