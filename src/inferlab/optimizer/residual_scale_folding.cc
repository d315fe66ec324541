// residual_scale_folding (level 2): x + x * s, with s broadcasting into x
// (a per-channel scale), becomes x * (s + 1): one pass over x instead of a
// Mul and an Add, with the + 1 on s alone. PaddleOCR's detection neck
// (residual squeeze-excite: conv output plus itself scaled by the
// HardSigmoid of its pooled channels) has eight of these on its largest
// feature maps. In real arithmetic the two are equal; in float32 they round
// differently, within FP32 tolerance.
#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

class ResidualScaleFoldingPass : public GraphPass {
 public:
  const char* name() const override { return "residual_scale_folding"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    rewrite_each_node(context, editor,
                      [&](int index) { return try_fold(context, editor, index, stats); });
  }

 private:
  // The scale s when `add` is Add(x, Mul(x, s)) (either order, either
  // operand of the Mul) with the product read only by `add`, s smaller than
  // x, and every value of x's static shape and a float type; else "".
  static std::string scale_of(const PassContext& context, GraphEditor& editor,
                              const model::Node& add, int& mul_index) {
    for (size_t k = 0; k < 2; ++k) {
      const std::string& x = add.inputs[1 - k];
      mul_index = editor.producer(add.inputs[k]);
      if (mul_index < 0 || editor.is_removed(mul_index)) continue;
      const model::Node& mul = editor.graph().nodes[static_cast<size_t>(mul_index)];
      if (!is_op(mul, "", "Mul") || mul.inputs.size() != 2 || mul.outputs.size() != 1 ||
          !single_reader(editor, add.inputs[k])) {
        continue;
      }
      const int x_side = mul.inputs[0] == x ? 0 : (mul.inputs[1] == x ? 1 : -1);
      if (x_side < 0 || mul.inputs[0] == mul.inputs[1]) continue;
      const std::string& s = mul.inputs[static_cast<size_t>(1 - x_side)];
      const std::optional<Shape> x_shape = static_shape(context, x);
      const std::optional<Shape> s_shape = static_shape(context, s);
      if (!x_shape || !s_shape || shape_numel(*s_shape) >= shape_numel(*x_shape) ||
          s_shape->size() > x_shape->size() || static_shape(context, add.outputs[0]) != x_shape ||
          !is_float_value(context, x) || !is_float_value(context, s)) {
        continue;
      }
      return s;
    }
    return "";
  }

  bool try_fold(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node add = editor.graph().nodes[static_cast<size_t>(index)];
    if (!is_op(add, "", "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
    int mul_index = -1;
    const std::string s = scale_of(context, editor, add, mul_index);
    if (s.empty()) return false;
    const model::Node mul = editor.graph().nodes[static_cast<size_t>(mul_index)];
    const std::string& x = mul.inputs[0] == s ? mul.inputs[1] : mul.inputs[0];
    const model::ValueInfo* info = context.static_info(s);
    Tensor one = info->dtype == DataType::kFloat64 ? Tensor::scalar<double>(1.0)
                                                   : Tensor::scalar<float>(1.0f);
    model::Node plus_one;
    plus_one.name = editor.fresh_name(add.name + "_scale_plus_one");
    plus_one.op_type = "Add";
    plus_one.inputs = {s, editor.add_constant(add.name + "_one", std::move(one))};
    plus_one.outputs = {editor.fresh_name(s + "_plus_one")};
    model::Node scaled;
    scaled.name = add.name;
    scaled.op_type = "Mul";
    scaled.inputs = {x, plus_one.outputs[0]};
    scaled.outputs = add.outputs;
    editor.add_node(std::move(plus_one));
    replace_nodes(editor, {mul_index, index}, std::move(scaled));
    stats.record("folded Add(x, Mul(x, s)) into Mul(x, s + 1)", add.name);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_residual_scale_folding_pass() {
  return std::make_unique<ResidualScaleFoldingPass>();
}

}  // namespace inferlab::optimizer::conv_fusion
