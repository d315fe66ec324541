// layernorm_fusion (level 2): the decomposed layer normalization over the
// last axis, as exporters write it —
//   m = ReduceMean(x); d = x - m; v = ReduceMean(Pow(d, 2) | d * d);
//   n = d / Sqrt(v + eps)  (or d * Reciprocal(Sqrt(v + eps)));
//   y = n * gamma (+ beta)
// — becomes one LayerNormalization (default domain from opset 17, else
// ai.inferlab::LayerNormalization with the same semantics). Fires only when
// both reductions are over the last axis with keepdims, every intermediate
// has no other reader and is no graph output, eps is a scalar constant and
// gamma/beta are constants of the last dimension's size (nothing else
// broadcasts the same way).
#include "inferlab/optimizer/transformer_match.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

struct LayerNormMatch {
  std::vector<int> covered;
  std::string x, gamma, beta, output;
  int64_t hidden = 0;
  float epsilon = 0;
};

// ReduceMean over the last axis of a rank-`rank` input, keeping dims.
bool reduces_last_axis(const Matcher& m, const model::Node& node, int64_t rank) {
  if (!transformer::is_op(node, "ReduceMean") || node.inputs.empty()) return false;
  auto keep = node.attributes.find("keepdims");
  if (keep != node.attributes.end() && keep->second.i != 1) return false;
  std::vector<int64_t> axes;
  if (auto it = node.attributes.find("axes"); it != node.attributes.end()) {
    axes = it->second.ints;
  } else if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
    const Tensor* t = m.constant(node.inputs[1]);
    if (t == nullptr) return false;
    for (int64_t i = 0; i < t->numel(); ++i) {
      axes.push_back(static_cast<int64_t>(t->element_as_double(i)));
    }
  }
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// d's two readers: the square (Pow 2 or d*d) and the normalization (Div or
// Mul by a Reciprocal). Returns the square node, or -1.
int find_square(const Matcher& m, const std::string& d) {
  for (int reader : m.editor.consumers(d)) {
    const model::Node& node = m.node(reader);
    if (transformer::is_op(node, "Pow") && node.inputs[0] == d &&
        m.scalar_near(node.inputs[1], 2.0, 0.0)) {
      return reader;
    }
    if (transformer::is_op(node, "Mul") && node.inputs[0] == d && node.inputs[1] == d) {
      return reader;
    }
  }
  return -1;
}

// From Sqrt(v + eps) to the normalized value n; appends the nodes covered.
std::string match_normalize(const Matcher& m, const std::string& d, const std::string& root,
                            std::vector<int>& covered) {
  if (int div = m.sole_consumer(root, "Div"); div >= 0) {
    if (m.node(div).inputs[0] != d) return "";
    covered.push_back(div);
    return m.node(div).outputs[0];
  }
  const int recip = m.sole_consumer(root, "Reciprocal");
  if (recip < 0) return "";
  const int mul = m.sole_consumer(m.node(recip).outputs[0], "Mul");
  if (mul < 0 || Matcher::other_input(m.node(mul), m.node(recip).outputs[0]) != d) return "";
  covered.insert(covered.end(), {recip, mul});
  return m.node(mul).outputs[0];
}

std::optional<LayerNormMatch> match(const Matcher& m, int reduce) {
  LayerNormMatch r;
  r.x = m.node(reduce).inputs[0];
  const model::ValueInfo* info = m.context.static_info(r.x);
  if (info == nullptr || info->dtype != DataType::kFloat32 || info->dims.empty()) return {};
  const auto rank = static_cast<int64_t>(info->dims.size());
  r.hidden = info->dims.back().value;
  if (!reduces_last_axis(m, m.node(reduce), rank)) return {};
  const int sub = m.sole_consumer(m.node(reduce).outputs[0], "Sub");
  if (sub < 0 || m.node(sub).inputs[0] != r.x) return {};
  const std::string d = m.node(sub).outputs[0];
  const int square = find_square(m, d);
  if (square < 0) return {};
  const int reduce2 = m.sole_consumer(m.node(square).outputs[0], "ReduceMean");
  if (reduce2 < 0 || !reduces_last_axis(m, m.node(reduce2), rank)) return {};
  const int add_eps = m.sole_consumer(m.node(reduce2).outputs[0], "Add");
  if (add_eps < 0) return {};
  const auto eps = m.scalar(Matcher::other_input(m.node(add_eps), m.node(reduce2).outputs[0]));
  const int sqrt = m.sole_consumer(m.node(add_eps).outputs[0], "Sqrt");
  if (!eps || sqrt < 0) return {};
  r.epsilon = static_cast<float>(*eps);
  r.covered = {reduce, sub, square, reduce2, add_eps, sqrt};
  const std::string n = match_normalize(m, d, m.node(sqrt).outputs[0], r.covered);
  if (n.empty() || !m.read_only_by(d, r.covered)) return {};
  const int scale = m.sole_consumer(n, "Mul");
  if (scale < 0) return {};
  r.gamma = Matcher::other_input(m.node(scale), n);
  if (transformer::channel_vector(m, r.gamma, r.hidden) == nullptr) return {};
  r.covered.push_back(scale);
  r.output = m.node(scale).outputs[0];
  if (const int shift = m.sole_consumer(r.output, "Add"); shift >= 0) {
    const std::string beta = Matcher::other_input(m.node(shift), r.output);
    if (transformer::channel_vector(m, beta, r.hidden) != nullptr) {
      r.beta = beta;
      r.covered.push_back(shift);
      r.output = m.node(shift).outputs[0];
    }
  }
  return r;
}

// A 1-D version of a per-channel constant (reused when it already is 1-D).
std::string as_vector(Matcher& m, const std::string& value, int64_t hidden) {
  const Tensor* t = transformer::channel_vector(m, value, hidden);
  if (t->shape().size() == 1) return value;
  return transformer::add_channel_vector(m.editor, value, *t);
}

class LayerNormFusion : public GraphPass {
 public:
  const char* name() const override { return "layernorm_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const bool standard = transformer::default_opset(context) >= 17;
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index) || !transformer::is_op(m.node(index), "ReduceMean")) continue;
      const std::optional<LayerNormMatch> found = match(m, index);
      if (!found) continue;
      model::Node ln;
      ln.op_type = "LayerNormalization";
      ln.domain = standard ? "" : "ai.inferlab";
      ln.inputs = {found->x, as_vector(m, found->gamma, found->hidden)};
      if (!found->beta.empty()) ln.inputs.push_back(as_vector(m, found->beta, found->hidden));
      ln.outputs = {""};
      ln.attributes["axis"] = transformer::int_attribute(-1);
      ln.attributes["epsilon"] = transformer::float_attribute(found->epsilon);
      if (!standard) transformer::import_domain(context, "ai.inferlab");
      stats.record("fused LayerNormalization",
                   transformer::replace_nodes(editor, found->covered, {ln}, found->output));
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_layernorm_fusion_pass() {
  return std::make_unique<LayerNormFusion>();
}

}  // namespace inferlab::optimizer
