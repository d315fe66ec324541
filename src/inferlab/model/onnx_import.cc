// ONNX import: bytes (or the file, streamed) -> onnx::ModelProto (the ONNX
// library) -> header checks (IR version, opsets, domains) -> graph IR
// (tensors, attributes, subgraphs) -> ONNX checker (skipped, with a warning,
// when an operator is unknown to ONNX) -> tensor bytes moved out of the
// message -> InferLab's validation and topological sort. The graph is
// converted before the checker runs because conversion validates tensor sizes
// and external-data paths that the checker would otherwise touch unchecked;
// the bytes of raw_data tensors are copied only after it, each message field
// freed as it is copied, so the weights are in memory once (plus one tensor).
#include "inferlab/model/onnx_import.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
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

std::string node_label(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? fmt::format("#{} ({})", index, node.op_type())
                             : fmt::format("'{}' ({})", node.name(), node.op_type());
}

// Every node's domain must be one the model imports (ONNX's rule); any
// imported domain is accepted here, and whether InferLab has kernels for its
// operators is the runtime's question.
void check_node_domains(const onnx::GraphProto& graph, const std::map<std::string, int64_t>& opsets,
                        const std::string& source) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (!is_default_domain(node.domain()) && opsets.count(node.domain()) == 0) {
      fail(ErrorCode::kInvalidModel,
           "{}: node {} uses domain '{}', which the model does not import (opset_import)", source,
           node_label(node, i), node.domain());
    }
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) check_node_domains(attr.g(), opsets, source);
      for (const onnx::GraphProto& g : attr.graphs()) check_node_domains(g, opsets, source);
    }
  }
}

// Operators (subgraphs included) that ONNX's schema registry does not know at
// the model's opset of their domain, as "Foo" or "com.microsoft.FusedConv",
// in order of first appearance. (The checker stops at the first unknown one
// of the default domain, and says nothing of the others.)
void collect_unknown_ops(const onnx::GraphProto& graph,
                         const std::map<std::string, int64_t>& opsets,
                         std::vector<std::string>& unknown) {
  for (const onnx::NodeProto& node : graph.node()) {
    const std::string domain = is_default_domain(node.domain()) ? std::string() : node.domain();
    auto opset = opsets.find(domain);
    const int version =
        opset == opsets.end() ? 0 : static_cast<int>(std::min<int64_t>(opset->second, INT_MAX));
    if (onnx::OpSchemaRegistry::Schema(node.op_type(), version, domain) == nullptr) {
      const std::string name = domain.empty() ? node.op_type() : domain + "." + node.op_type();
      if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) unknown.push_back(name);
    }
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) collect_unknown_ops(attr.g(), opsets, unknown);
      for (const onnx::GraphProto& g : attr.graphs()) collect_unknown_ops(g, opsets, unknown);
    }
  }
}

std::map<std::string, int64_t> read_opsets(const onnx::ModelProto& proto,
                                           const std::string& source) {
  std::map<std::string, int64_t> opsets;
  for (const onnx::OperatorSetIdProto& opset : proto.opset_import()) {
    opsets[is_default_domain(opset.domain()) ? std::string() : opset.domain()] = opset.version();
  }
  check_node_domains(proto.graph(), opsets, source);
  auto it = opsets.find("");
  if (it == opsets.end()) {
    // Exporters write opset_import after the graph, so a file cut short
    // usually parses but has lost it.
    fail(ErrorCode::kInvalidModel, "{}: the model does not import the default ONNX domain{}",
         source,
         proto.opset_import_size() == 0
             ? " (no opset_import at all: truncated or not an ONNX model?)"
             : "");
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
void run_onnx_checker(const onnx::ModelProto& proto, const std::map<std::string, int64_t>& opsets,
                      int64_t default_opset, const std::string& base_dir, const std::string& source,
                      std::vector<std::string>& warnings) {
  if (proto.ir_version() > kMaxCheckerIrVersion || default_opset > kMaxCheckerOpset) {
    const bool ir_too_new = proto.ir_version() > kMaxCheckerIrVersion;
    warnings.push_back(fmt::format("{}: {} {} is newer than the ONNX 1.12 checker; skipping it",
                                   source, ir_too_new ? "IR version" : "opset",
                                   ir_too_new ? proto.ir_version() : default_opset));
    return;
  }
  // The checker stops at the first operator it has no schema for; skipping it
  // lets the runtime list every unsupported operator at once, and InferLab's
  // own validation still checks the graph's structure.
  std::vector<std::string> unknown_ops;
  collect_unknown_ops(proto.graph(), opsets, unknown_ops);
  if (!unknown_ops.empty()) {
    warnings.push_back(
        fmt::format("{}: skipping the ONNX checker: operators unknown to ONNX 1.12: {}", source,
                    fmt::join(unknown_ops, ", ")));
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

// The import of a parsed message. Tensor bytes are copied out of `proto`
// only after the ONNX checker has read it, one tensor at a time, each
// message field freed as soon as it is copied: the weights are not held
// twice over (see take_pending_raw_data).
Model import_parsed(onnx::ModelProto& proto, const ImportOptions& options,
                    const std::string& base_dir, const std::string& source) {
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
  std::vector<PendingRawData> pending;
  model.graph = convert_main_graph(*proto.mutable_graph(), ctx, &pending);
  if (options.run_checker)
    run_onnx_checker(proto, model.opsets, model.default_opset(), base_dir, source, model.warnings);
  take_pending_raw_data(pending);
  validate_and_sort(*model.graph, source);
  return model;
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
  return import_parsed(proto, options, base_dir, source);
}

// Parses from the file through a stream: its bytes are never held whole next
// to the message built from them.
Model import_model_file(const std::string& path, const ImportOptions& options) {
  const uintmax_t size = checked_file_size(path, kMaxProtobufBytes);
  if (size == 0) fail(ErrorCode::kInvalidModel, "{}: empty file, not an ONNX model", path);
  onnx::ModelProto proto;
  {
    std::ifstream file(path, std::ios::binary);
    if (!file) fail(ErrorCode::kIo, "{}: cannot open: {}", path, std::strerror(errno));
    // protobuf's own block size: a larger read buffer, freed after parsing,
    // would raise glibc's mmap threshold and put the weights on the heap.
    google::protobuf::io::IstreamInputStream stream(&file);
    if (!proto.ParseFromZeroCopyStream(&stream)) {
      if (file.bad()) fail(ErrorCode::kIo, "{}: cannot read: {}", path, std::strerror(errno));
      fail(ErrorCode::kInvalidModel, "{}: not a valid ONNX model (truncated or corrupt)", path);
    }
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string base_dir = parent.empty() ? std::string(".") : parent.string();
  return import_parsed(proto, options, base_dir, path);
}

}  // namespace inferlab::model
