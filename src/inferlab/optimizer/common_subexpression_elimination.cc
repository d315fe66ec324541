// common_subexpression_elimination (level 1): two nodes with the same op,
// domain, attributes and inputs compute the same outputs; readers of the
// later one read the earlier one's outputs and the later node goes. Never
// for nodes with subgraphs or random ops (Dropout included), nor when both
// nodes' outputs are graph outputs (each output keeps its own name).
#include <unordered_map>

#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/pass_util.h"

namespace inferlab::optimizer {

namespace {

void append_tensor(std::string& key, const Tensor& tensor) {
  key += std::to_string(static_cast<int>(tensor.dtype())) + "[";
  for (int64_t dim : tensor.shape()) key += std::to_string(dim) + ",";
  key += "]";
  if (tensor.dtype() == DataType::kString) {
    const std::string* strings = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.numel(); ++i)
      key += std::to_string(strings[i].size()) + ":" + strings[i];
  } else {
    key.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  }
}

// Everything that decides a node's results, as one exact string (lengths
// prefix variable parts, so different nodes never give the same key).
std::string node_key(const model::Node& node) {
  std::string key = node.domain + "\n" + node.op_type + "\n";
  for (const std::string& input : node.inputs) key += std::to_string(input.size()) + ":" + input;
  // Appended piecewise: GCC 12 misreports `"literal" + std::string&&` (-Wrestrict).
  key += '\n';
  key += std::to_string(node.outputs.size());
  key += ':';
  for (const std::string& output : node.outputs) key += output.empty() ? "0" : "1";
  for (const auto& [name, attribute] : node.attributes) {
    key += '\n';
    key += name;
    key += '=';
    key += std::to_string(static_cast<int>(attribute.kind));
    key += ':';
    key += std::to_string(attribute.f) + "|" + std::to_string(attribute.i) + "|";
    key += std::to_string(attribute.s.size()) + ":" + attribute.s + "|";
    for (float value : attribute.floats) key += std::to_string(value) + ",";
    key += "|";
    for (int64_t value : attribute.ints) key += std::to_string(value) + ",";
    key += "|";
    for (const std::string& value : attribute.strings)
      key += std::to_string(value.size()) + ":" + value;
    if (attribute.kind == model::Attribute::Kind::kTensor) append_tensor(key, attribute.t);
    for (const Tensor& tensor : attribute.tensors) append_tensor(key, tensor);
  }
  return key;
}

class CommonSubexpressionElimination : public GraphPass {
 public:
  const char* name() const override { return "common_subexpression_elimination"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    std::unordered_map<std::string, int> first_by_key;
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const model::Node& node = context.graph().nodes[i];
      if (has_subgraph(node) || is_random_op(node) || node.outputs.empty()) continue;
      auto [it, inserted] = first_by_key.emplace(node_key(node), static_cast<int>(i));
      if (inserted) continue;
      if (!merge(editor, it->second, static_cast<int>(i))) continue;
      stats.record("merged " + node.op_type, context.graph().nodes[i].name);
    }
    if (stats.changed()) editor.compact();
  }

 private:
  // Readers of `duplicate`'s outputs read `kept`'s; false (nothing changed)
  // when an output pair cannot be merged.
  static bool merge(GraphEditor& editor, int kept, int duplicate) {
    const std::vector<std::string> kept_outputs = editor.graph().nodes[kept].outputs;
    const std::vector<std::string> outputs = editor.graph().nodes[duplicate].outputs;
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!outputs[k].empty() && !can_bypass(editor, outputs[k], kept_outputs[k])) return false;
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (!outputs[k].empty()) editor.replace_all_uses(outputs[k], kept_outputs[k]);
    }
    editor.remove_node(duplicate);
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_common_subexpression_elimination_pass() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace inferlab::optimizer
