// Finds the operators of a model that have no kernel; see op_support.h.
#include "inferlab/runtime/op_support.h"

#include <fmt/format.h>

namespace inferlab::runtime {

namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

void collect_unsupported(const model::Model& model, const model::Graph& graph,
                         const kernels::OpRegistry& registry,
                         std::vector<UnsupportedOp>& unsupported) {
  for (const model::Node& node : graph.nodes) {
    const int64_t opset = model.opset_of(node.domain);
    if (registry.find(node.domain, node.op_type, opset) == nullptr) {
      const std::string domain = is_default_domain(node.domain) ? std::string() : node.domain;
      auto it = unsupported.begin();
      while (it != unsupported.end() && (it->domain != domain || it->op_type != node.op_type)) ++it;
      if (it == unsupported.end()) {
        it = unsupported.insert(it, UnsupportedOp{domain, node.op_type, opset, {}});
      }
      it->nodes.push_back(node.name);
    }
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
        collect_unsupported(model, *attribute.g, registry, unsupported);
      }
    }
  }
}

}  // namespace

std::string UnsupportedOp::qualified_name() const {
  return domain.empty() ? op_type : domain + "." + op_type;
}

std::vector<UnsupportedOp> find_unsupported_ops(const model::Model& model,
                                                const kernels::OpRegistry& registry) {
  std::vector<UnsupportedOp> unsupported;
  if (model.graph) collect_unsupported(model, *model.graph, registry, unsupported);
  return unsupported;
}

std::string describe_unsupported_op(const UnsupportedOp& op) {
  std::string text = op.qualified_name() + " (";
  if (op.domain.empty()) text += fmt::format("opset {}, ", op.opset);
  text += op.nodes.size() == 1 ? "node " : "nodes ";
  for (size_t i = 0; i < op.nodes.size(); ++i) {
    text += fmt::format("{}'{}'", i ? ", " : "", op.nodes[i]);
  }
  return text + ")";
}

std::string describe_unsupported_ops(const std::string& source,
                                     const std::vector<UnsupportedOp>& unsupported) {
  std::string text = fmt::format("{}: {} unsupported operator{}: ", source, unsupported.size(),
                                 unsupported.size() == 1 ? "" : "s");
  for (size_t i = 0; i < unsupported.size(); ++i) {
    if (i) text += ", ";
    text += describe_unsupported_op(unsupported[i]);
  }
  return text;
}

void check_ops_supported(const model::Model& model, const kernels::OpRegistry& registry) {
  const std::vector<UnsupportedOp> unsupported = find_unsupported_ops(model, registry);
  if (!unsupported.empty()) {
    throw Error(ErrorCode::kUnsupported, describe_unsupported_ops(model.source, unsupported));
  }
}

}  // namespace inferlab::runtime
