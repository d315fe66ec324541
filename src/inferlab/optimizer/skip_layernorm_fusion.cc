// skip_layernorm_fusion (level 2): a residual Add feeding a layer
// normalization over the last axis,
//   LayerNormalization(Add(a, b) [+ bias], gamma, beta)
// becomes ONNX Runtime's com.microsoft SkipLayerNormalization(a, b, gamma,
// beta, bias). Fires only on 2-D or 3-D float inputs where a and b have the
// same static shape (no broadcasting), bias (when present) is a constant
// 1-D vector of the hidden size added after the residual sum, gamma and
// beta are constants of the hidden size, each Add's result is read by
// nothing else, and the layer norm's Mean/InvStdDev outputs are unused.
#include "inferlab/optimizer/transformer_match.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

struct SkipMatch {
  std::vector<int> covered;
  std::vector<std::string> inputs;  // input, skip, gamma, beta, bias
  std::string output;
  float epsilon = 1e-5f;
};

bool is_layer_norm(const model::Node& node, const PassContext& context) {
  if (node.op_type != "LayerNormalization") return false;
  if (node.domain == "ai.inferlab") return true;
  return (node.domain.empty() || node.domain == "ai.onnx") && context.model.default_opset() >= 17;
}

bool last_axis_only(const Matcher& m, const model::Node& ln, int64_t rank) {
  const auto axis = ln.attributes.find("axis");
  const int64_t a = axis == ln.attributes.end() ? -1 : axis->second.i;
  const auto stash = ln.attributes.find("stash_type");
  if (stash != ln.attributes.end() && stash->second.i != 1) return false;
  for (size_t k = 1; k < ln.outputs.size(); ++k) {
    if (!ln.outputs[k].empty() && m.editor.use_count(ln.outputs[k]) > 0) return false;
  }
  return a == -1 || a == rank - 1;
}

// The residual sum: Add(a, b) with equal shapes, maybe inside Add(., bias).
bool match_sum(const Matcher& m, const std::string& sum, const Shape& shape, SkipMatch& r,
               std::string& bias) {
  const int add = m.producer_of(sum, "Add");
  if (add < 0) return false;
  const model::Node& node = m.node(add);
  if (m.shape(node.inputs[0]) == shape && m.shape(node.inputs[1]) == shape &&
      m.constant(node.inputs[0]) == nullptr && m.constant(node.inputs[1]) == nullptr) {
    r.covered.push_back(add);
    r.inputs = {node.inputs[0], node.inputs[1]};
    return true;
  }
  if (!bias.empty()) return false;  // one bias level only
  for (const std::string& input : node.inputs) {
    if (transformer::channel_vector(m, input, shape.back()) == nullptr) continue;
    const std::string inner = Matcher::other_input(node, input);
    if (m.shape(input) != Shape{shape.back()} || m.sole_consumer(inner) != add) return false;
    bias = input;
    r.covered.push_back(add);
    return match_sum(m, inner, shape, r, bias);
  }
  return false;
}

std::optional<SkipMatch> match(const Matcher& m, int index) {
  const model::Node& ln = m.node(index);
  if (ln.inputs.size() < 2) return {};
  const std::string& x = ln.inputs[0];
  const model::ValueInfo* info = m.context.static_info(x);
  if (info == nullptr || info->dtype != DataType::kFloat32) return {};
  const Shape shape = info->static_shape();
  if (shape.size() != 2 && shape.size() != 3) return {};
  if (!last_axis_only(m, ln, static_cast<int64_t>(shape.size())) || m.sole_consumer(x) != index) {
    return {};
  }
  const int64_t hidden = shape.back();
  const bool has_beta = ln.inputs.size() > 2 && !ln.inputs[2].empty();
  if (m.shape(ln.inputs[1]) != Shape{hidden} ||
      !transformer::channel_vector(m, ln.inputs[1], hidden)) {
    return {};
  }
  if (has_beta && (m.shape(ln.inputs[2]) != Shape{hidden} ||
                   !transformer::channel_vector(m, ln.inputs[2], hidden))) {
    return {};
  }
  SkipMatch r;
  std::string bias;
  if (!match_sum(m, x, shape, r, bias)) return {};
  r.inputs.push_back(ln.inputs[1]);
  r.inputs.push_back(has_beta ? ln.inputs[2] : "");
  if (!bias.empty()) r.inputs.push_back(bias);
  while (r.inputs.back().empty()) r.inputs.pop_back();
  r.covered.push_back(index);
  r.output = ln.outputs[0];
  const auto eps = ln.attributes.find("epsilon");
  r.epsilon = eps == ln.attributes.end() ? 1e-5f : eps->second.f;
  return r;
}

class SkipLayerNormFusion : public GraphPass {
 public:
  const char* name() const override { return "skip_layernorm_fusion"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index) || !is_layer_norm(m.node(index), context)) continue;
      const std::optional<SkipMatch> found = match(m, index);
      if (!found) continue;
      model::Node skip;
      skip.domain = "com.microsoft";
      skip.op_type = "SkipLayerNormalization";
      skip.inputs = found->inputs;
      skip.outputs = {""};
      skip.attributes["epsilon"] = transformer::float_attribute(found->epsilon);
      transformer::import_domain(context, "com.microsoft");
      stats.record("fused SkipLayerNormalization",
                   transformer::replace_nodes(editor, found->covered, {skip}, found->output));
    }
    if (stats.changed()) editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_skip_layernorm_fusion_pass() {
  return std::make_unique<SkipLayerNormFusion>();
}

}  // namespace inferlab::optimizer
