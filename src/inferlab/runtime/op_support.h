// Which operators of a model InferLab cannot run. Every node, subgraphs
// included, is checked against the kernel registry, and all unsupported ones
// are reported at once (one message listing each op type with its nodes), so
// a user learns the whole gap from one attempt. The importer lets such models
// through (it skips the ONNX checker for operators ONNX does not know), so this
// is where unknown and foreign-domain operators are reported.
#pragma once

#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"

namespace inferlab::runtime {

struct UnsupportedOp {
  std::string domain;   // "" for the default ONNX domain
  std::string op_type;  // without the domain: "FusedConv"
  int64_t opset = 0;    // the opset version of the op's domain in the model
  std::vector<std::string> nodes;

  // "Foo", or "com.microsoft.FusedConv" outside the default domain.
  std::string qualified_name() const;
};

// In order of first appearance; empty when everything is supported.
std::vector<UnsupportedOp> find_unsupported_ops(const model::Model& model,
                                                const kernels::OpRegistry& registry);

// "Foo (opset 13, nodes 'a', 'b')" or "com.microsoft.FusedConv (node 'c')":
// the opset is shown for the default domain only, the one kernels are keyed on.
std::string describe_unsupported_op(const UnsupportedOp& op);

// "<model>: 2 unsupported operators: Foo (opset 13, nodes 'a', 'b'), custom.Bar (node 'c')".
std::string describe_unsupported_ops(const std::string& source,
                                     const std::vector<UnsupportedOp>& unsupported);

// Throws Error(kUnsupported) with describe_unsupported_ops() when any op is unsupported.
void check_ops_supported(const model::Model& model, const kernels::OpRegistry& registry);

}  // namespace inferlab::runtime
