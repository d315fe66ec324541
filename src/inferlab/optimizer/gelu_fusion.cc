// gelu_fusion (level 2): GELU written out by exporters becomes ONNX
// Runtime's com.microsoft operator —
//   exact:  x * 0.5 * (1 + Erf(x / sqrt(2)))   (x / 1.41421 or x * 0.70711)
//   tanh:   x * 0.5 * (1 + Tanh(0.79788 * (x + 0.044715 * Pow(x, 3))))
// with the products 0.5 * x * (...) in any of their exported orders —
// -> Gelu / FastGelu. When x = Add(y, b) with b a constant 1-D bias of the
// last dimension (x read by nothing else), the Add joins: BiasGelu(y, b) /
// FastGelu(y, b); except after a MatMul, where the activation fusion that
// runs next folds the bias and the Gelu into the MatMul instead.
#include <cmath>

#include "inferlab/optimizer/transformer_match.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

struct GeluMatch {
  std::vector<int> covered;
  std::string x, bias, output;
  bool tanh_form = false;
};

// From the (1 + erf/tanh) value to the result: x times it times 0.5.
bool match_tail(const Matcher& m, const std::string& x, const std::string& one_plus, GeluMatch& r) {
  const int mul = m.sole_consumer(one_plus, "Mul");
  if (mul < 0) return false;
  const std::string other = Matcher::other_input(m.node(mul), one_plus);
  const std::string& product = m.node(mul).outputs[0];
  if (other == x) {  // (x * (1 + e)) * 0.5
    const int half = m.sole_consumer(product, "Mul");
    if (half < 0 || !m.scalar_near(Matcher::other_input(m.node(half), product), 0.5)) return false;
    r.covered.insert(r.covered.end(), {mul, half});
    r.output = m.node(half).outputs[0];
    return true;
  }
  if (m.scalar_near(other, 0.5)) {  // ((1 + e) * 0.5) * x
    const int outer = m.sole_consumer(product, "Mul");
    if (outer < 0 || Matcher::other_input(m.node(outer), product) != x) return false;
    r.covered.insert(r.covered.end(), {mul, outer});
    r.output = m.node(outer).outputs[0];
    return true;
  }
  const int half = m.producer_of(other, "Mul");  // (x * 0.5) * (1 + e)
  if (half < 0 || m.sole_consumer(other) != mul ||
      !m.scalar_near(Matcher::other_input(m.node(half), x), 0.5)) {
    return false;
  }
  r.covered.insert(r.covered.end(), {half, mul});
  r.output = product;
  return true;
}

// 1 + f(...) where f is the node at `index`.
int match_one_plus(const Matcher& m, int index) {
  const std::string& out = m.node(index).outputs[0];
  const int add = m.sole_consumer(out, "Add");
  if (add < 0 || !m.scalar_near(Matcher::other_input(m.node(add), out), 1.0)) return -1;
  return add;
}

// Erf(x / sqrt(2)): returns x.
std::string match_erf_argument(const Matcher& m, int erf, std::vector<int>& covered) {
  const std::string& arg = m.node(erf).inputs[0];
  if (m.sole_consumer(arg) != erf) return "";
  if (const int div = m.producer_of(arg, "Div"); div >= 0) {
    if (!m.scalar_near(m.node(div).inputs[1], std::sqrt(2.0))) return "";
    covered.push_back(div);
    return m.node(div).inputs[0];
  }
  const int mul = m.producer_of(arg, "Mul");
  if (mul < 0) return "";
  for (const std::string& input : m.node(mul).inputs) {
    if (m.scalar_near(input, M_SQRT1_2)) {
      covered.push_back(mul);
      return Matcher::other_input(m.node(mul), input);
    }
  }
  return "";
}

// Tanh(0.79788 * (x + 0.044715 * Pow(x, 3))): returns x.
std::string match_tanh_argument(const Matcher& m, int tanh, std::vector<int>& covered) {
  const std::string& arg = m.node(tanh).inputs[0];
  const int scale = m.producer_of(arg, "Mul");
  if (scale < 0 || m.sole_consumer(arg) != tanh) return "";
  const model::Node& sn = m.node(scale);
  const bool first = m.scalar_near(sn.inputs[0], std::sqrt(2.0 / M_PI));
  if (!first && !m.scalar_near(sn.inputs[1], std::sqrt(2.0 / M_PI))) return "";
  const std::string inner = sn.inputs[first ? 1 : 0];
  const int add = m.producer_of(inner, "Add");
  if (add < 0 || m.sole_consumer(inner) != scale) return "";
  for (const std::string& term : m.node(add).inputs) {
    const int cube_scale = m.producer_of(term, "Mul");
    if (cube_scale < 0 || m.sole_consumer(term) != add) continue;
    for (const std::string& factor : m.node(cube_scale).inputs) {
      const int pow = m.producer_of(factor, "Pow");
      if (pow < 0 || m.sole_consumer(factor) != cube_scale ||
          !m.scalar_near(Matcher::other_input(m.node(cube_scale), factor), 0.044715) ||
          !m.scalar_near(m.node(pow).inputs[1], 3.0, 0.0)) {
        continue;
      }
      const std::string x = m.node(pow).inputs[0];
      if (Matcher::other_input(m.node(add), term) != x) return "";
      covered.insert(covered.end(), {pow, cube_scale, add, scale});
      return x;
    }
  }
  return "";
}

// Takes x = Add(y, bias) into the match when that keeps meaning and helps.
void absorb_bias(const Matcher& m, GeluMatch& r) {
  const int add = m.producer_of(r.x, "Add");
  const std::optional<Shape> shape = m.shape(r.x);
  if (add < 0 || !shape || shape->empty() || !m.read_only_by(r.x, r.covered)) return;
  for (const std::string& input : m.node(add).inputs) {
    const Tensor* bias = m.constant(input);
    const std::string y = Matcher::other_input(m.node(add), input);
    if (bias == nullptr || bias->shape() != Shape{shape->back()} || y.empty()) continue;
    if (m.constant(y) != nullptr || m.shape(y) != shape) continue;
    if (m.producer_of(y, "MatMul") >= 0 && m.sole_consumer(y) == add) return;
    r.covered.push_back(add);
    r.bias = input;
    r.x = y;
    return;
  }
}

std::optional<GeluMatch> match(const Matcher& m, int index) {
  GeluMatch r;
  r.tanh_form = transformer::is_op(m.node(index), "Tanh");
  r.x = r.tanh_form ? match_tanh_argument(m, index, r.covered)
                    : match_erf_argument(m, index, r.covered);
  if (r.x.empty()) return {};
  const model::ValueInfo* info = m.context.static_info(r.x);
  if (info == nullptr || info->dtype != DataType::kFloat32) return {};
  const int one_plus = match_one_plus(m, index);
  if (one_plus < 0) return {};
  r.covered.insert(r.covered.end(), {index, one_plus});
  if (!match_tail(m, r.x, m.node(one_plus).outputs[0], r)) return {};
  absorb_bias(m, r);
  return r;
}

class GeluFusion : public GraphPass {
 public:
  const char* name() const override { return "gelu_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index)) continue;
      const model::Node& node = m.node(index);
      if (!transformer::is_op(node, "Erf") && !transformer::is_op(node, "Tanh")) continue;
      const std::optional<GeluMatch> found = match(m, index);
      if (!found) continue;
      model::Node gelu;
      gelu.domain = "com.microsoft";
      gelu.op_type = found->tanh_form ? "FastGelu" : found->bias.empty() ? "Gelu" : "BiasGelu";
      gelu.inputs = {found->x};
      if (!found->bias.empty()) gelu.inputs.push_back(found->bias);
      gelu.outputs = {""};
      transformer::import_domain(context, "com.microsoft");
      const std::string kind = "fused " + gelu.op_type;
      stats.record(kind, transformer::replace_nodes(editor, found->covered, {gelu}, found->output));
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_gelu_fusion_pass() { return std::make_unique<GeluFusion>(); }

}  // namespace inferlab::optimizer
