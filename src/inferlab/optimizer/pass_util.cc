// Helpers shared by the basic passes (see pass_util.h).
#include "inferlab/optimizer/pass_util.h"

#include <set>

namespace inferlab::optimizer {

bool has_subgraph(const model::Node& node) {
  for (const auto& [key, attribute] : node.attributes) {
    if (attribute.kind == model::Attribute::Kind::kGraph) return true;
  }
  return false;
}

bool is_random_op(const model::Node& node) {
  static const std::set<std::string> kRandom = {
      "Dropout",           "RandomNormal", "RandomUniform", "RandomNormalLike",
      "RandomUniformLike", "Multinomial",  "Bernoulli"};
  return kRandom.count(node.op_type) != 0;
}

int64_t node_opset(const PassContext& context, const model::Node& node) {
  return context.model.opset_of(node.domain);
}

bool can_bypass(GraphEditor& editor, const std::string& output, const std::string& input) {
  if (input.empty() || output.empty()) return false;
  if (!editor.is_graph_output(output)) return true;
  // The producer of `input` will be renamed to write `output`: it must exist,
  // and `input` must not be a graph output, nor read by this scope's subgraphs.
  const int producer = editor.producer(input);
  if (producer < 0 || editor.is_graph_output(input)) return false;
  int node_reads = 0;
  for (int reader : editor.consumers(input)) {
    for (const std::string& name : editor.graph().nodes[static_cast<size_t>(reader)].inputs) {
      if (name == input) ++node_reads;
    }
  }
  return node_reads == editor.use_count(input);
}

void bypass_node(GraphEditor& editor, int index, const std::string& output,
                 const std::string& input) {
  editor.replace_all_uses(output, input);
  editor.remove_node(index);
}

}  // namespace inferlab::optimizer
