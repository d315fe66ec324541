#include "inferlab/model/graph_dump.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace inferlab::model {
namespace {

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) text += ", ";
    text += names[i];
  }
  return text;
}

template <typename T>
std::string list_text(const std::vector<T>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + fmt::format("{}", values[i]);
  return text + "]";
}

std::string tensor_summary(const Tensor& tensor) {
  return fmt::format("tensor {}{}", dtype_name(tensor.dtype()), shape_to_string(tensor.shape()));
}

std::string attribute_text(const Attribute& attr) {
  switch (attr.kind) {
    case Attribute::Kind::kFloat:
      return fmt::format("{}", attr.f);
    case Attribute::Kind::kInt:
      return fmt::format("{}", attr.i);
    case Attribute::Kind::kString:
      return fmt::format("\"{}\"", attr.s);
    case Attribute::Kind::kTensor:
      return tensor_summary(attr.t);
    case Attribute::Kind::kGraph:
      return "<graph>";
    case Attribute::Kind::kFloats:
      return list_text(attr.floats);
    case Attribute::Kind::kInts:
      return list_text(attr.ints);
    case Attribute::Kind::kStrings:
      return list_text(attr.strings);
    case Attribute::Kind::kTensors:
      return fmt::format("<{} tensors>", attr.tensors.size());
  }
  return "?";
}

std::string value_list(const std::vector<ValueInfo>& values) {
  std::vector<std::string> parts;
  for (const ValueInfo& value : values) parts.push_back(value.name + ": " + value.to_string());
  return join(parts);
}

}  // namespace

std::string dump_graph(const Graph& graph, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string text;
  text += pad + "inputs: " + value_list(graph.inputs) + "\n";
  text += pad + "outputs: " + value_list(graph.outputs) + "\n";
  if (!graph.overridable_initializers.empty()) {
    text += pad + "overridable initializers: " + value_list(graph.overridable_initializers) + "\n";
  }
  if (!graph.outer_scope_inputs.empty()) {
    text += pad + "outer scope inputs: " + join(graph.outer_scope_inputs) + "\n";
  }
  size_t initializer_bytes = 0;
  for (const auto& [name, tensor] : graph.initializers) initializer_bytes += tensor.nbytes();
  text += pad + fmt::format("initializers: {} ({} bytes)\n", graph.initializers.size(),
                            initializer_bytes);
  for (const Node& node : graph.nodes) {
    const std::string op = node.domain.empty() ? node.op_type : node.domain + "." + node.op_type;
    text +=
        pad + fmt::format("{}: {}({}) -> {}", node.name, op, join(node.inputs), join(node.outputs));
    std::vector<std::string> attrs;
    for (const auto& [name, attr] : node.attributes)
      attrs.push_back(name + "=" + attribute_text(attr));
    if (!attrs.empty()) text += " {" + join(attrs) + "}";
    text += "\n";
    for (const auto& [name, attr] : node.attributes) {
      if (attr.kind != Attribute::Kind::kGraph || !attr.g) continue;
      text += pad + "  " + name + ":\n" + dump_graph(*attr.g, indent + 4);
    }
  }
  return text;
}

std::string dump_graph(const Model& model) {
  std::string text =
      fmt::format("model {} (IR version {}, opsets:", model.source, model.ir_version);
  for (const auto& [domain, version] : model.opsets) {
    text += fmt::format(" {}={}", domain.empty() ? "ai.onnx" : domain, version);
  }
  text += ")\n";
  if (model.graph) text += dump_graph(*model.graph, 0);
  return text;
}

}  // namespace inferlab::model
