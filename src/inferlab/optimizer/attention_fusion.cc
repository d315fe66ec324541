// attention_fusion (level 2): the multi-head self-attention block as
// torch.nn.MultiheadAttention exports it (sequence-first x [S, B, E_in]):
//   qkv = x @ W (+ b)               W constant [E_in, 3E], b constant [3E]
//   q, k, v = Slice(qkv, last axis, [0,E), [E,2E), [2E,3E))
//   each Reshape [S, B*N, E/N]; q, v Transpose [1,0,2]; k Transpose [1,2,0]
//   p = Softmax(scale * (q @ k) (+ mask))   scale on q or on the product
//   out = Reshape(Transpose(p @ v, [1,0,2]), [S*B, E])
// becomes ONNX Runtime's com.microsoft Attention (merged QKV weights, Q|K|V
// columns, head h at columns h*E/N) between a Transpose of x to [B, S, E_in]
// and a Transpose + Reshape back; transpose_chain and reshape_chain then
// remove those where the model already had the inverse layout changes.
// Fires only with static shapes, float data, constant weights, a constant
// mask of shape [S, S] or [1, S, S] (as attention_bias [1, 1, S, S]), and
// every intermediate read by nothing else.
#include <algorithm>

#include "inferlab/optimizer/transformer_match.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

struct AttentionMatch {
  std::vector<int> covered;
  std::string x, weights, bias, mask, output;
  int64_t seq = 0, batch = 0, heads = 0, hidden = 0;
  double scale = 1.0;
};

bool has_perm(const model::Node& node, const std::vector<int64_t>& perm) {
  auto it = node.attributes.find("perm");
  return it != node.attributes.end() && it->second.ints == perm;
}

// Mul/Div by a scalar constant in front of `value`: folds its factor into
// scale and returns the other input (or `value` itself when there is none).
std::string skip_scale(const Matcher& m, const std::string& value, int reader, double& scale,
                       std::vector<int>& covered) {
  if (m.sole_consumer(value) != reader) return "";
  for (const char* op : {"Div", "Mul"}) {
    const int node = m.producer_of(value, op);
    if (node < 0) continue;
    const auto& in = m.node(node).inputs;
    const bool div = op[0] == 'D';
    const int at = div ? 1 : (m.scalar(in[1]) ? 1 : 0);
    const std::optional<double> factor = m.scalar(in[at]);
    if (!factor || *factor == 0 || m.constant(in[1 - at]) != nullptr) return value;
    scale *= div ? 1.0 / *factor : *factor;
    covered.push_back(node);
    return in[1 - at];
  }
  return value;
}

// Transpose(Reshape(Slice(qkv)), perm) read by `reader`: returns the Slice
// node and checks the head layout [S, B*N, E/N].
int match_head(const Matcher& m, const std::string& value, int reader,
               const std::vector<int64_t>& perm, AttentionMatch& r) {
  const int transpose = m.producer_of(value, "Transpose");
  if (transpose < 0 || m.sole_consumer(value) < 0 || !has_perm(m.node(transpose), perm)) {
    return -1;
  }
  const std::string& reshaped = m.node(transpose).inputs[0];
  const int reshape = m.producer_of(reshaped, "Reshape");
  const std::optional<Shape> heads = m.shape(reshaped);
  if (reshape < 0 || m.sole_consumer(reshaped) != transpose || !heads || heads->size() != 3) {
    return -1;
  }
  const std::string& sliced = m.node(reshape).inputs[0];
  const int slice = m.producer_of(sliced, "Slice");
  if (slice < 0 || m.sole_consumer(sliced) != reshape) return -1;
  const Shape want{r.seq, (*heads)[1], (*heads)[2]};
  if (*heads != want || (*heads)[1] % r.batch != 0 ||
      (*heads)[2] * ((*heads)[1] / r.batch) != r.hidden) {
    return -1;
  }
  r.heads = (*heads)[1] / r.batch;
  r.covered.insert(r.covered.end(), {slice, reshape, transpose});
  return slice;
}

// Slice(qkv, [part*E], [(part+1)*E], last axis), steps 1.
bool slices_part(const Matcher& m, int slice, const std::string& qkv, int part, int64_t hidden) {
  const auto& in = m.node(slice).inputs;
  if (in.size() < 4 || in[0] != qkv) return false;
  if (in.size() > 4 && !in[4].empty()) {
    const Tensor* steps = m.constant(in[4]);
    if (steps == nullptr || steps->numel() != 1 || steps->element_as_double(0) != 1) return false;
  }
  const Tensor* starts = m.constant(in[1]);
  const Tensor* ends = m.constant(in[2]);
  const Tensor* axes = m.constant(in[3]);
  if (!starts || !ends || !axes || starts->numel() != 1 || ends->numel() != 1 ||
      axes->numel() != 1) {
    return false;
  }
  const double axis = axes->element_as_double(0);
  const double end = std::min(ends->element_as_double(0), static_cast<double>(3 * hidden));
  return (axis == -1 || axis == 2) && starts->element_as_double(0) == part * hidden &&
         end == (part + 1) * hidden;
}

// qkv = x @ W (+ b): fills x, weights, bias.
bool match_projection(const Matcher& m, const std::string& qkv, AttentionMatch& r) {
  std::string product = qkv;
  if (const int add = m.producer_of(qkv, "Add"); add >= 0) {
    for (const std::string& input : m.node(add).inputs) {
      if (m.shape(input) != Shape{3 * r.hidden} || !m.constant(input)) continue;
      r.bias = input;
      product = Matcher::other_input(m.node(add), input);
      r.covered.push_back(add);
    }
    if (r.bias.empty() || m.sole_consumer(product) != add) return false;
  }
  const int matmul = m.producer_of(product, "MatMul");
  if (matmul < 0) return false;
  r.covered.push_back(matmul);
  r.x = m.node(matmul).inputs[0];
  r.weights = m.node(matmul).inputs[1];
  const Tensor* w = m.constant(r.weights);
  const std::optional<Shape> x = m.shape(r.x);
  return w != nullptr && w->dtype() == DataType::kFloat32 && w->rank() == 2 &&
         w->shape()[1] == 3 * r.hidden && x && x->size() == 3 && (*x)[0] == r.seq &&
         (*x)[1] == r.batch && (*x)[2] == w->shape()[0] &&
         m.context.static_info(r.x)->dtype == DataType::kFloat32;
}

// From the context product p @ v back out to Reshape [S*B, E].
bool match_output(const Matcher& m, int pv, AttentionMatch& r) {
  const int back = m.sole_consumer(m.node(pv).outputs[0], "Transpose");
  if (back < 0 || !has_perm(m.node(back), {1, 0, 2})) return false;
  const int merge = m.sole_consumer(m.node(back).outputs[0], "Reshape");
  if (merge < 0) return false;
  r.output = m.node(merge).outputs[0];
  const std::optional<Shape> out = m.shape(r.output);
  const std::optional<Shape> ctx = m.shape(m.node(back).outputs[0]);
  // ctx is [S, B*N, E/N]; the merged result [S*B, E].
  if (!out || !ctx || ctx->size() != 3 || out->size() != 2 || (*out)[1] % (*ctx)[2] != 0 ||
      (*out)[0] * (*out)[1] != (*ctx)[0] * (*ctx)[1] * (*ctx)[2] || (*out)[0] % (*ctx)[0] != 0) {
    return false;
  }
  r.seq = (*ctx)[0];
  r.hidden = (*out)[1];
  r.covered.insert(r.covered.end(), {pv, back, merge});
  return true;
}

std::optional<AttentionMatch> match(const Matcher& m, int softmax) {
  AttentionMatch r;
  const model::Node& sm = m.node(softmax);
  const auto axis = sm.attributes.find("axis");
  const int64_t a = axis == sm.attributes.end() ? (m.context.model.default_opset() >= 13 ? -1 : 1)
                                                : axis->second.i;
  if (a != -1 && a != 2) return {};
  const int pv = m.sole_consumer(sm.outputs[0], "MatMul");
  if (pv < 0 || m.node(pv).inputs[0] != sm.outputs[0] || !match_output(m, pv, r)) return {};
  const std::optional<Shape> scores_shape = m.shape(sm.inputs[0]);
  if (!scores_shape || scores_shape->size() != 3 || (*scores_shape)[1] != r.seq) return {};
  r.batch = 0;
  r.covered.push_back(softmax);
  std::string scores = sm.inputs[0];
  if (const int add = m.producer_of(scores, "Add");
      add >= 0 && m.sole_consumer(scores) == softmax) {
    for (const std::string& input : m.node(add).inputs) {
      const Tensor* mask = m.constant(input);
      if (mask == nullptr ||
          (mask->shape() != Shape{r.seq, r.seq} && mask->shape() != Shape{1, r.seq, r.seq})) {
        continue;
      }
      r.mask = input;
      r.covered.push_back(add);
      scores = Matcher::other_input(m.node(add), input);
      break;
    }
    if (r.mask.empty()) return {};
  }
  const int reader = m.sole_consumer(scores);
  scores = skip_scale(m, scores, reader, r.scale, r.covered);
  const int qk = m.producer_of(scores, "MatMul");
  if (qk < 0 || m.sole_consumer(scores) < 0) return {};
  r.covered.push_back(qk);
  const std::optional<Shape> x_shape = m.shape(m.node(qk).inputs[0]);
  const std::string q = skip_scale(m, m.node(qk).inputs[0], qk, r.scale, r.covered);
  if (q.empty() || !x_shape) return {};
  // B from the qkv input: x is [S, B, E_in]; found through the q Slice.
  const int q_transpose = m.producer_of(q, "Transpose");
  if (q_transpose < 0) return {};
  const int q_reshape = m.producer_of(m.node(q_transpose).inputs[0], "Reshape");
  if (q_reshape < 0) return {};
  const std::optional<Shape> q_slice = m.shape(m.node(q_reshape).inputs[0]);
  if (!q_slice || q_slice->size() != 3 || (*q_slice)[2] != r.hidden) return {};
  r.batch = (*q_slice)[1];
  const int qs = match_head(m, q, qk, {1, 0, 2}, r);
  const int ks = match_head(m, m.node(qk).inputs[1], qk, {1, 2, 0}, r);
  const int vs = match_head(m, m.node(pv).inputs[1], pv, {1, 0, 2}, r);
  if (qs < 0 || ks < 0 || vs < 0) return {};
  const std::string qkv = m.node(qs).inputs[0];
  if (!slices_part(m, qs, qkv, 0, r.hidden) || !slices_part(m, ks, qkv, 1, r.hidden) ||
      !slices_part(m, vs, qkv, 2, r.hidden) || !m.read_only_by(qkv, {qs, ks, vs})) {
    return {};
  }
  if (!match_projection(m, qkv, r)) return {};
  return r;
}

std::vector<model::Node> build(Matcher& m, const AttentionMatch& r) {
  GraphEditor& editor = m.editor;
  model::Node to_batch_first{"", "Transpose", "", {r.x}, {editor.fresh_name(r.x + "_bsd")}, {}};
  to_batch_first.attributes["perm"] = transformer::ints_attribute({1, 0, 2});
  model::Node attention{"",
                        "Attention",
                        "com.microsoft",
                        {to_batch_first.outputs[0], r.weights, r.bias},
                        {editor.fresh_name(r.output + "_attention")},
                        {}};
  attention.attributes["num_heads"] = transformer::int_attribute(r.heads);
  attention.attributes["scale"] = transformer::float_attribute(static_cast<float>(r.scale));
  if (!r.mask.empty()) {
    Tensor mask = m.constant(r.mask)->reshaped(Shape{1, 1, r.seq, r.seq});
    attention.inputs.insert(attention.inputs.end(),
                            {"", "", editor.add_constant(r.mask + "_4d", std::move(mask))});
  }
  model::Node to_seq_first{
      "", "Transpose", "", {attention.outputs[0]}, {editor.fresh_name(r.output + "_sbd")}, {}};
  to_seq_first.attributes["perm"] = transformer::ints_attribute({1, 0, 2});
  const std::string shape = editor.add_constant(
      r.output + "_shape", Tensor::from_vector<int64_t>({r.seq * r.batch, r.hidden}, Shape{2}));
  model::Node merge{"", "Reshape", "", {to_seq_first.outputs[0], shape}, {""}, {}};
  return {to_batch_first, attention, to_seq_first, merge};
}

class AttentionFusion : public GraphPass {
 public:
  const char* name() const override { return "attention_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index) || !transformer::is_op(m.node(index), "Softmax")) continue;
      const std::optional<AttentionMatch> found = match(m, index);
      if (!found) continue;
      transformer::import_domain(context, "com.microsoft");
      stats.record(
          "fused Attention",
          transformer::replace_nodes(editor, found->covered, build(m, *found), found->output, 1));
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_attention_fusion_pass() {
  return std::make_unique<AttentionFusion>();
}

}  // namespace inferlab::optimizer
