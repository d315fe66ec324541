// ONNX import: bytes -> onnx::ModelProto (the ONNX library) -> header checks
// (IR version, opsets, domains) -> graph IR (tensors, attributes, subgraphs)
// -> ONNX checker -> InferLab's validation and topological sort. The graph is
// converted before the checker runs because conversion validates tensor sizes
// and external-data paths that the checker would otherwise touch unchecked.
#include "inferlab/model/onnx_import.h"

#include <climits>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "inferlab/core/error.h"
#include "inferlab/model/file_io.h"
#include "inferlab/model/graph_convert.h"
#include "inferlab/model/validate.h"

namespace inferlab::model {
namespace {

constexpr int64_t kMinIrVersion = 3;
constexpr int64_t kMaxIrVersion = 10;
constexpr int64_t kMinDefaultOpset = 7;
constexpr int64_t kMaxDefaultOpset = 18;
constexpr int64_t kMaxCheckerIrVersion = 8;     // ONNX 1.12's checker
constexpr int64_t kMaxCheckerOpset = 17;        // ONNX 1.12's operator schemas
constexpr int64_t kMaxProtobufBytes = INT_MAX;  // protobuf cannot parse larger messages

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// Rejects nodes of domains other than the default one, naming the first.
void check_node_domains(const onnx::GraphProto& graph, const std::map<std::string, int64_t>& opsets,
                        const std::string& source) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (!is_default_domain(node.domain())) {
      const std::string label = node.name().empty()
                                    ? fmt::format("#{} ({})", i, node.op_type())
                                    : fmt::format("'{}' ({})", node.name(), node.op_type());
      auto it = opsets.find(node.domain());
      if (it == opsets.end()) {
        fail(ErrorCode::kInvalidModel,
             "{}: node {} uses domain '{}', which the model does not import", source, label,
             node.domain());
      }
      fail(ErrorCode::kUnsupported, "{}: domain '{}' (opset {}) is not supported; node {} uses it",
           source, node.domain(), it->second, label);
    }
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) check_node_domains(attr.g(), opsets, source);
      for (const onnx::GraphProto& g : attr.graphs()) check_node_domains(g, opsets, source);
    }
  }
}

std::map<std::string, int64_t> read_opsets(const onnx::ModelProto& proto,
                                           const std::string& source) {
  std::map<std::string, int64_t> opsets;
  for (const onnx::OperatorSetIdProto& opset : proto.opset_import()) {
    opsets[is_default_domain(opset.domain()) ? std::string() : opset.domain()] = opset.version();
  }
  check_node_domains(proto.graph(), opsets,
                     source);  // names a foreign domain before the default one
  auto it = opsets.find("");
  if (it == opsets.end()) {
    fail(ErrorCode::kInvalidModel, "{}: the model does not import the default ONNX domain", source);
  }
  if (it->second < kMinDefaultOpset || it->second > kMaxDefaultOpset) {
    fail(ErrorCode::kUnsupported,
         "{}: opset {} of the default ONNX domain is not supported (InferLab supports {} to {})",
         source, it->second, kMinDefaultOpset, kMaxDefaultOpset);
  }
  return opsets;
}

void check_header(const onnx::ModelProto& proto, const std::string& source) {
  if (!proto.has_graph()) {
    fail(ErrorCode::kInvalidModel, "{}: not an ONNX model (it has no graph)", source);
  }
  if (!proto.has_ir_version() || proto.ir_version() <= 0) {
    fail(ErrorCode::kInvalidModel, "{}: not an ONNX model (it has no IR version)", source);
  }
  if (proto.ir_version() < kMinIrVersion || proto.ir_version() > kMaxIrVersion) {
    fail(ErrorCode::kUnsupported, "{}: IR version {} is not supported (InferLab supports {} to {})",
         source, proto.ir_version(), kMinIrVersion, kMaxIrVersion);
  }
}

// The body of onnx::checker::check_model(path), with the model directory set
// so external data resolves without re-reading the file.
void run_onnx_checker(const onnx::ModelProto& proto, int64_t default_opset,
                      const std::string& base_dir, const std::string& source) {
  if (proto.ir_version() > kMaxCheckerIrVersion || default_opset > kMaxCheckerOpset) {
    const bool ir_too_new = proto.ir_version() > kMaxCheckerIrVersion;
    fmt::print(stderr, "warning: {}: {} {} is newer than the ONNX 1.12 checker; skipping it\n",
               source, ir_too_new ? "IR version" : "opset",
               ir_too_new ? proto.ir_version() : default_opset);
    return;
  }
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(proto.ir_version()));
  std::unordered_map<std::string, int> imports;
  for (const onnx::OperatorSetIdProto& opset : proto.opset_import()) {
    imports[opset.domain()] = static_cast<int>(opset.version());
  }
  ctx.set_opset_imports(imports);
  if (!base_dir.empty()) ctx.set_model_dir(base_dir);
  try {
    onnx::checker::LexicalScopeContext lexical_scope;
    onnx::checker::check_graph(proto.graph(), ctx, lexical_scope);
    if (proto.ir_version() >= 8)
      onnx::checker::check_model_local_functions(proto, ctx, lexical_scope);
  } catch (const std::exception& e) {
    fail(ErrorCode::kInvalidModel, "{}: the ONNX checker rejects the model: {}", source, e.what());
  }
}

}  // namespace

Model import_model_bytes(const void* data, size_t size, const ImportOptions& options,
                         const std::string& base_dir, const std::string& source) {
  if (size == 0) fail(ErrorCode::kInvalidModel, "{}: empty file, not an ONNX model", source);
  if (size > static_cast<size_t>(kMaxProtobufBytes)) {
    fail(ErrorCode::kLimitExceeded,
         "{}: {} bytes is beyond protobuf's 2 GiB limit (large models keep weights as external "
         "data)",
         source, size);
  }
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) {
    fail(ErrorCode::kInvalidModel, "{}: not a valid ONNX model (truncated or corrupt)", source);
  }
  check_header(proto, source);
  Model model;
  model.source = source;
  model.ir_version = proto.ir_version();
  model.opsets = read_opsets(proto, source);
  model.producer_name = proto.producer_name();
  model.producer_version = proto.producer_version();
  if (proto.graph().node_size() == 0 && proto.graph().output_size() == 0) {
    fail(ErrorCode::kInvalidModel, "{}: the graph has no nodes and no outputs", source);
  }
  const ConvertContext ctx{source, base_dir, options.max_tensor_bytes};
  model.graph = convert_main_graph(proto.graph(), ctx);
  if (options.run_checker) run_onnx_checker(proto, model.default_opset(), base_dir, source);
  validate_and_sort(*model.graph, source);
  return model;
}

Model import_model_file(const std::string& path, const ImportOptions& options) {
  const std::string bytes = read_whole_file(path, kMaxProtobufBytes);
  std::string base_dir = std::filesystem::path(path).parent_path().string();
  if (base_dir.empty()) base_dir = ".";
  return import_model_bytes(bytes.data(), bytes.size(), options, base_dir, path);
}

}  // namespace inferlab::model
