// transpose_chain and reshape_chain (level 2): layout clutter left by
// exporters and by attention_fusion.
// - transpose_chain: Transpose(Transpose(x, p1), p2) -> Transpose(x, p1∘p2),
//   removed when that is the identity; and a Transpose that moves only
//   size-1 dims (same element order) -> Reshape to its static output shape.
// - reshape_chain: a chain of Reshape/Squeeze/Unsqueeze/Flatten whose final
//   shape is static -> one Reshape, removed when the shape comes back to
//   the chain's input shape.
// The first node of a chain goes only when nothing else reads its output.
#include <numeric>

#include "inferlab/optimizer/pass_util.h"
#include "inferlab/optimizer/transformer_match.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {
namespace {

using transformer::Matcher;

std::vector<int64_t> perm_of(const Matcher& m, const model::Node& node) {
  auto it = node.attributes.find("perm");
  if (it != node.attributes.end()) return it->second.ints;
  const std::optional<Shape> shape = m.shape(node.inputs[0]);
  if (!shape) return {};
  std::vector<int64_t> perm(shape->size());
  std::iota(perm.rbegin(), perm.rend(), 0);  // default: reverse the dims
  return perm;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Non-1 dims keep their relative order: the permutation only moves unit dims.
bool moves_only_unit_dims(const Shape& input, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (input[static_cast<size_t>(axis)] == 1) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

// Replaces node `index` (and `first`, when >= 0) by `replacement` writing
// node `index`'s output; or bypasses to `source` when replacement is empty.
void rewrite(GraphEditor& editor, int index, int first, std::vector<model::Node> replacement,
             const std::string& source) {
  const std::string output = editor.graph().nodes[static_cast<size_t>(index)].outputs[0];
  if (replacement.empty()) {
    bypass_node(editor, index, output, source);
    if (first >= 0) editor.remove_node(first);
    return;
  }
  std::vector<int> covered{index};
  if (first >= 0) covered.push_back(first);
  transformer::replace_nodes(editor, covered, std::move(replacement), output);
}

class TransposeChain : public GraphPass {
 public:
  const char* name() const override { return "transpose_chain"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index) || !transformer::is_op(m.node(index), "Transpose")) continue;
      const model::Node node = m.node(index);
      const int first = m.producer_of(node.inputs[0], "Transpose");
      if (first >= 0) {
        merge(m, index, first, stats);
      } else {
        to_reshape(m, index, stats);
      }
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }

 private:
  static void merge(Matcher& m, int index, int first, PassStats& stats) {
    const model::Node node = m.node(index);
    const model::Node head = m.node(first);
    const std::vector<int64_t> p1 = perm_of(m, head);
    const std::vector<int64_t> p2 = perm_of(m, node);
    if (p1.empty() || p1.size() != p2.size()) return;
    std::vector<int64_t> composed(p2.size());
    for (size_t i = 0; i < p2.size(); ++i) composed[i] = p1[static_cast<size_t>(p2[i])];
    const int drop_first = m.sole_consumer(head.outputs[0]) == index ? first : -1;
    if (is_identity(composed)) {
      if (!can_bypass(m.editor, node.outputs[0], head.inputs[0])) return;
      rewrite(m.editor, index, drop_first, {}, head.inputs[0]);
      stats.record("removed Transpose pair", head.name);
      return;
    }
    model::Node merged{"", "Transpose", "", {head.inputs[0]}, {""}, {}};
    merged.attributes["perm"] = transformer::ints_attribute(composed);
    rewrite(m.editor, index, drop_first, {merged}, "");
    stats.record("merged Transpose chain", head.name);
  }

  static void to_reshape(Matcher& m, int index, PassStats& stats) {
    const model::Node node = m.node(index);
    const std::optional<Shape> in = m.shape(node.inputs[0]);
    const std::optional<Shape> out = m.shape(node.outputs[0]);
    const std::vector<int64_t> perm = perm_of(m, node);
    if (!in || !out || perm.size() != in->size() || is_identity(perm) ||
        !moves_only_unit_dims(*in, perm)) {
      return;
    }
    const std::string shape = m.editor.add_constant(
        node.outputs[0] + "_shape",
        Tensor::from_vector<int64_t>(*out, Shape{static_cast<int64_t>(out->size())}));
    rewrite(m.editor, index, -1,
            {model::Node{"", "Reshape", "", {node.inputs[0], shape}, {""}, {}}}, "");
    stats.record("replaced Transpose of unit dims with Reshape", node.name);
  }
};

bool is_reshape_like(const model::Node& node) {
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten"}) {
    if (transformer::is_op(node, op)) return true;
  }
  return false;
}

class ReshapeChain : public GraphPass {
 public:
  const char* name() const override { return "reshape_chain"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    Matcher m{context, editor};
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const int index = static_cast<int>(i);
      if (editor.is_removed(index) || !is_reshape_like(m.node(index))) continue;
      const model::Node node = m.node(index);
      const int first = editor.producer(node.inputs[0]);
      if (first < 0 || !is_reshape_like(m.node(first))) continue;
      const model::Node head = m.node(first);
      const std::optional<Shape> source = m.shape(head.inputs[0]);
      const std::optional<Shape> target = m.shape(node.outputs[0]);
      if (!target || std::find(target->begin(), target->end(), 0) != target->end()) continue;
      const int drop_first = m.sole_consumer(head.outputs[0]) == index ? first : -1;
      if (source == target) {
        if (!can_bypass(editor, node.outputs[0], head.inputs[0])) continue;
        rewrite(editor, index, drop_first, {}, head.inputs[0]);
        stats.record("removed Reshape chain", head.name);
        continue;
      }
      const std::string shape = editor.add_constant(
          node.outputs[0] + "_shape",
          Tensor::from_vector<int64_t>(*target, Shape{static_cast<int64_t>(target->size())}));
      rewrite(editor, index, drop_first,
              {model::Node{"", "Reshape", "", {head.inputs[0], shape}, {""}, {}}}, "");
      stats.record("collapsed Reshape chain", head.name);
    }
    if (!stats.changed()) return;
    editor.remove_unused_initializers();
    editor.compact();
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_transpose_chain_pass() {
  return std::make_unique<TransposeChain>();
}
std::unique_ptr<GraphPass> make_reshape_chain_pass() { return std::make_unique<ReshapeChain>(); }

}  // namespace inferlab::optimizer
