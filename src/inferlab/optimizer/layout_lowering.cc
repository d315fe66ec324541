// Export of the layout pass's channels-last nodes as ONNX (see
// fused_lowering.h): each becomes its channels-first operator between two
// Transposes. The channels-first FusedConv left behind is then lowered by
// the conv family like any other.
#include <set>

#include "inferlab/optimizer/conv_fusion_util.h"
#include "inferlab/optimizer/fused_lowering.h"

namespace inferlab::optimizer {
namespace {

model::Node transpose(GraphEditor& editor, const std::string& from, const std::string& to,
                      std::vector<int64_t> perm) {
  model::Node node;
  node.name = editor.fresh_name(to + "_transpose");
  node.op_type = "Transpose";
  node.inputs = {from};
  node.outputs = {to};
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInts;
  attribute.ints = std::move(perm);
  node.attributes["perm"] = attribute;
  return node;
}

bool is_channels_last_node(const model::Node& node) {
  static const std::set<std::string> kPools{"NhwcMaxPool", "NhwcAveragePool",
                                            "NhwcGlobalAveragePool"};
  if (node.domain != conv_fusion::kInferLabDomain) return false;
  if (kPools.count(node.op_type)) return true;
  auto it = node.attributes.find("channels_last");
  return node.op_type == "FusedConv" && it != node.attributes.end() && it->second.i == 1;
}

}  // namespace

bool lower_layout_family(GraphEditor& editor, int index) {
  model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
  if (!is_channels_last_node(node)) return false;
  // The node's outputs are handed to the replacement before it is removed.
  for (std::string& output : editor.graph().nodes[static_cast<size_t>(index)].outputs) {
    if (!output.empty()) output = editor.fresh_name(output + "_lowered_away");
  }
  editor.remove_node(index);
  const std::vector<int64_t> to_first = {0, 3, 1, 2};
  const std::vector<int64_t> to_last = {0, 2, 3, 1};
  // X, and FusedConv's residual Z, are images; W and B are not.
  for (size_t i : {size_t{0}, size_t{3}}) {
    if (i >= node.inputs.size() || node.inputs[i].empty()) continue;
    const std::string first = editor.fresh_name(node.inputs[i] + "_nchw");
    editor.add_node(transpose(editor, node.inputs[i], first, to_first));
    node.inputs[i] = first;
  }
  const std::string output = node.outputs.at(0);
  node.outputs[0] = editor.fresh_name(output + "_nchw");
  if (node.op_type == "FusedConv") {
    node.attributes.erase("channels_last");
  } else {
    node.op_type = node.op_type.substr(std::string("Nhwc").size());
    node.domain.clear();
  }
  const std::string first_output = node.outputs[0];
  editor.add_node(std::move(node));
  editor.add_node(transpose(editor, first_output, output, to_last));
  return true;
}

}  // namespace inferlab::optimizer
