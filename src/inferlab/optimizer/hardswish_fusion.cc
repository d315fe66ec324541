// hardswish_fusion (level 2): HardSwish written out by exporters (PaddleOCR,
// mobile nets) becomes one HardSwish node —
//   x * Clip(x + 3, 0, 6) / 6     (the Div, or a Mul by 1/6, before or
//                                  after the product with x)
//   x * HardSigmoid(x; alpha 1/6, beta 0.5)
// with the commutative Add and Mul in either operand order. The ONNX
// HardSwish exists from opset 14; below it the node is
// ai.inferlab::HardSwish, the same operator (docs/fused-ops.md). Either way
// activation_fusion, which runs next, takes it into a preceding Conv.
// Constants must be exact (3, 0, 6, 6; 1/6 within 1e-6 relative), so the
// result differs from the chain's only by FP32 rounding.
#include <cmath>

#include "inferlab/optimizer/conv_fusion_passes.h"
#include "inferlab/optimizer/transformer_match.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

constexpr double kSixthTolerance = 1e-6;  // relative, for 1/6 written as a float

struct HardSwishMatch {
  std::vector<int> covered;
  std::string x, output;
  std::string label;  // the covered ops, "Add+Clip+Mul+Div"
  DataType dtype = DataType::kUndefined;
};

// The rank of `value` when known (dims may be symbolic), else -1.
int64_t known_rank(const Matcher& m, const std::string& value) {
  auto it = m.context.shapes.values.find(value);
  if (it == m.context.shapes.values.end() || !it->second.has_shape) return -1;
  return static_cast<int64_t>(it->second.dims.size());
}

// Whether `value` is a one-element float constant of `dtype` equal to `want`
// (within `tolerance` relative; 0: exactly) that, broadcast against x
// (rank `x_rank`, -1 when unknown), leaves x's shape unchanged.
bool is_constant(const Matcher& m, const std::string& value, double want, double tolerance,
                 DataType dtype, int64_t x_rank) {
  const Tensor* t = m.constant(value);
  if (t == nullptr || t->dtype() != dtype || t->numel() != 1) return false;
  if (t->rank() > 0 && (x_rank < 0 || static_cast<int64_t>(t->rank()) > x_rank)) return false;
  const double got = t->element_as_double(0);
  return tolerance == 0 ? got == want : std::fabs(got - want) <= tolerance * std::fabs(want);
}

float float_attr(const model::Node& node, const char* key, float fallback) {
  auto it = node.attributes.find(key);
  if (it == node.attributes.end()) return fallback;
  return it->second.kind == model::Attribute::Kind::kFloat ? it->second.f : std::nanf("");
}

// Clip's bounds are exactly 0 and 6 (attributes before opset 11, inputs from 11).
bool clips_to_relu6(const Matcher& m, const model::Node& clip, DataType dtype) {
  if (m.context.model.opset_of(clip.domain) < 11) {
    return clip.attributes.count("min") != 0 && clip.attributes.count("max") != 0 &&
           float_attr(clip, "min", 1) == 0.0f && float_attr(clip, "max", 0) == 6.0f;
  }
  return clip.inputs.size() == 3 && is_constant(m, clip.inputs[1], 0.0, 0, dtype, -1) &&
         is_constant(m, clip.inputs[2], 6.0, 0, dtype, -1);
}

// The node scaling `value` by 1/6 (Div by 6 or Mul by 1/6) as its only
// reader, or -1.
int sixth_of(const Matcher& m, const std::string& value, const HardSwishMatch& r, int64_t x_rank) {
  const int reader = m.sole_consumer(value);
  if (reader < 0) return -1;
  const model::Node& node = m.node(reader);
  if (transformer::is_op(node, "Div") && node.inputs.size() == 2 && node.inputs[0] == value &&
      is_constant(m, node.inputs[1], 6.0, 0, r.dtype, x_rank)) {
    return reader;
  }
  if (transformer::is_op(node, "Mul") && is_constant(m, Matcher::other_input(node, value),
                                                     1.0 / 6.0, kSixthTolerance, r.dtype, x_rank)) {
    return reader;
  }
  return -1;
}

// The Mul of `gate` by x as gate's only reader, or -1.
int times_x(const Matcher& m, const std::string& gate, const std::string& x) {
  const int mul = m.sole_consumer(gate, "Mul");
  return mul >= 0 && Matcher::other_input(m.node(mul), gate) == x ? mul : -1;
}

// From the Clip at `index`: Add(x, 3) before it; x * clip / 6 after it.
std::optional<HardSwishMatch> match_clip(const Matcher& m, int index) {
  const model::Node& clip = m.node(index);
  const std::string& shifted = clip.inputs.empty() ? "" : clip.inputs[0];
  const int add = m.producer_of(shifted, "Add");
  if (add < 0 || m.sole_consumer(shifted) != index || clip.outputs.size() != 1) return {};
  HardSwishMatch r;
  for (const std::string& three : m.node(add).inputs) {
    const Tensor* t = m.constant(three);
    const std::string x = Matcher::other_input(m.node(add), three);
    if (t == nullptr || x.empty() || m.constant(x) != nullptr) continue;
    r.dtype = t->dtype();
    if (r.dtype != DataType::kFloat32 && r.dtype != DataType::kFloat64) return {};
    if (!is_constant(m, three, 3.0, 0, r.dtype, known_rank(m, x))) continue;
    r.x = x;
    break;
  }
  if (r.x.empty() || !clips_to_relu6(m, clip, r.dtype)) return {};
  const int64_t x_rank = known_rank(m, r.x);
  const std::string& gate = clip.outputs[0];
  r.covered = {add, index};
  if (const int mul = times_x(m, gate, r.x); mul >= 0) {  // (x * clip) / 6
    const int scale = sixth_of(m, m.node(mul).outputs[0], r, x_rank);
    if (scale < 0) return {};
    r.covered.insert(r.covered.end(), {mul, scale});
    r.output = m.node(scale).outputs[0];
    r.label = "Add+Clip+Mul+" + m.node(scale).op_type;
  } else {  // x * (clip / 6)
    const int scale = sixth_of(m, gate, r, x_rank);
    if (scale < 0) return {};
    const int outer = times_x(m, m.node(scale).outputs[0], r.x);
    if (outer < 0) return {};
    r.covered.insert(r.covered.end(), {scale, outer});
    r.output = m.node(outer).outputs[0];
    r.label = "Add+Clip+" + m.node(scale).op_type + "+Mul";
  }
  return r;
}

// From the HardSigmoid at `index`: x * HardSigmoid(x; 1/6, 0.5).
std::optional<HardSwishMatch> match_hard_sigmoid(const Matcher& m, int index) {
  const model::Node& gate = m.node(index);
  if (gate.inputs.size() != 1 || gate.outputs.size() != 1) return {};
  const float alpha = float_attr(gate, "alpha", 0.2f);
  if (std::fabs(alpha - 1.0 / 6.0) > kSixthTolerance / 6.0) return {};
  if (float_attr(gate, "beta", 0.5f) != 0.5f) return {};
  HardSwishMatch r;
  r.x = gate.inputs[0];
  const model::ValueInfo* info = m.context.static_info(r.x);
  if (info == nullptr) return {};
  r.dtype = info->dtype;
  const int mul = times_x(m, gate.outputs[0], r.x);
  if (mul < 0) return {};
  r.covered = {index, mul};
  r.output = m.node(mul).outputs[0];
  r.label = "HardSigmoid+Mul";
  return r;
}

class HardSwishFusion : public GraphPass {
 public:
  const char* name() const override { return "hardswish_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    // ONNX has HardSwish from opset 14; older models get ai.inferlab's.
    const bool standard = transformer::default_opset(context) >= 14;
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index)) continue;
      const model::Node& node = m.node(index);
      std::optional<HardSwishMatch> found;
      if (transformer::is_op(node, "Clip")) found = match_clip(m, index);
      if (transformer::is_op(node, "HardSigmoid")) found = match_hard_sigmoid(m, index);
      if (!found || (found->dtype != DataType::kFloat32 && found->dtype != DataType::kFloat64)) {
        continue;
      }
      if (const model::ValueInfo* info = context.static_info(found->x);
          info != nullptr && info->dtype != found->dtype) {
        continue;
      }
      model::Node hard_swish;
      hard_swish.op_type = "HardSwish";
      hard_swish.domain = standard ? "" : "ai.inferlab";
      hard_swish.inputs = {found->x};
      hard_swish.outputs = {""};
      if (!standard) transformer::import_domain(context, "ai.inferlab");
      stats.record("fused " + found->label + " (as HardSwish)",
                   transformer::replace_nodes(editor, found->covered, {hard_swish}, found->output));
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_hardswish_fusion_pass() {
  return std::make_unique<HardSwishFusion>();
}

}  // namespace inferlab::optimizer
