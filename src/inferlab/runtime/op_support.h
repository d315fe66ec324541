// Which operators of a model InferLab cannot run. Every node, subgraphs
// included, is checked against the kernel registry, and all unsupported ones
// are reported at once (one message listing each op type with its nodes), so
// a user learns the whole gap from one attempt.
#pragma once

#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/model/onnx_import.h"

namespace inferlab::runtime {

struct UnsupportedOp {
  std::string op_type;  // "Foo", or "domain:Foo" outside the default domain
  int64_t opset = 0;    // the opset version of the op's domain in the model
  std::vector<std::string> nodes;
};

// In order of first appearance; empty when everything is supported.
std::vector<UnsupportedOp> find_unsupported_ops(const model::Model& model,
                                                const kernels::OpRegistry& registry);

// "<model>: 2 unsupported operators: Foo (nodes 'a', 'b'), Bar (node 'c')".
std::string describe_unsupported_ops(const std::string& source,
                                     const std::vector<UnsupportedOp>& unsupported);

// Import for callers that report unsupported operators themselves (Session,
// inspect): when the ONNX checker rejects a model only because it knows no
// schema for an operator, the model is imported again without the checker,
// so every unsupported operator can be listed at once instead of the first.
model::Model import_model_file_listing_ops(const std::string& path,
                                           const model::ImportOptions& options = {});
model::Model import_model_bytes_listing_ops(const void* data, size_t size,
                                            const model::ImportOptions& options = {});

// Throws Error(kUnsupported) with describe_unsupported_ops() when any op is unsupported.
void check_ops_supported(const model::Model& model, const kernels::OpRegistry& registry);

}  // namespace inferlab::runtime
