// Finds the operators of a model that have no kernel; see op_support.h.
#include "inferlab/runtime/op_support.h"

#include <fmt/format.h>

namespace inferlab::runtime {

namespace {

int64_t domain_opset(const model::Model& model, const std::string& domain) {
  if (domain.empty() || domain == "ai.onnx") return model.default_opset();
  auto it = model.opsets.find(domain);
  return it == model.opsets.end() ? 0 : it->second;
}

void collect_unsupported(const model::Model& model, const model::Graph& graph,
                         const kernels::OpRegistry& registry,
                         std::vector<UnsupportedOp>& unsupported) {
  for (const model::Node& node : graph.nodes) {
    const int64_t opset = domain_opset(model, node.domain);
    if (registry.find(node.domain, node.op_type, opset) == nullptr) {
      const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
      const std::string op_type = default_domain ? node.op_type : node.domain + ":" + node.op_type;
      auto it = unsupported.begin();
      while (it != unsupported.end() && it->op_type != op_type) ++it;
      if (it == unsupported.end()) it = unsupported.insert(it, UnsupportedOp{op_type, opset, {}});
      it->nodes.push_back(node.name);
    }
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
        collect_unsupported(model, *attribute.g, registry, unsupported);
      }
    }
  }
}

// The ONNX checker's message for an operator it has no schema for.
bool is_unknown_op_rejection(const Error& error) {
  return error.code() == ErrorCode::kInvalidModel &&
         std::string(error.what()).find("No Op registered for") != std::string::npos;
}

template <typename ImportFunction>
model::Model import_listing_ops(const model::ImportOptions& options, ImportFunction import) {
  try {
    return import(options);
  } catch (const Error& error) {
    if (!options.run_checker || !is_unknown_op_rejection(error)) throw;
  }
  model::ImportOptions without_checker = options;
  without_checker.run_checker = false;
  return import(without_checker);
}

}  // namespace

model::Model import_model_file_listing_ops(const std::string& path,
                                           const model::ImportOptions& options) {
  return import_listing_ops(options, [&](const model::ImportOptions& chosen) {
    return model::import_model_file(path, chosen);
  });
}

model::Model import_model_bytes_listing_ops(const void* data, size_t size,
                                            const model::ImportOptions& options) {
  return import_listing_ops(options, [&](const model::ImportOptions& chosen) {
    return model::import_model_bytes(data, size, chosen);
  });
}

std::vector<UnsupportedOp> find_unsupported_ops(const model::Model& model,
                                                const kernels::OpRegistry& registry) {
  std::vector<UnsupportedOp> unsupported;
  if (model.graph) collect_unsupported(model, *model.graph, registry, unsupported);
  return unsupported;
}

std::string describe_unsupported_ops(const std::string& source,
                                     const std::vector<UnsupportedOp>& unsupported) {
  std::string text = fmt::format("{}: {} unsupported operator{}: ", source, unsupported.size(),
                                 unsupported.size() == 1 ? "" : "s");
  for (size_t i = 0; i < unsupported.size(); ++i) {
    const UnsupportedOp& op = unsupported[i];
    if (i) text += ", ";
    text +=
        fmt::format("{} (opset {}, node{} ", op.op_type, op.opset, op.nodes.size() == 1 ? "" : "s");
    for (size_t j = 0; j < op.nodes.size(); ++j) {
      text += fmt::format("{}'{}'", j ? ", " : "", op.nodes[j]);
    }
    text += ")";
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
