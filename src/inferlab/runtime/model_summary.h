// What `inferlab inspect` reports about a model, computed by the library so
// any program can ask: inputs and outputs, operator histogram, parameters,
// FLOPs (2 x multiply-accumulates of Conv, ConvTranspose, Gemm, MatMul and
// Einsum, from the inferred shapes), unsupported operators, and the inferred
// shape of every value. Works on models with unsupported operators too.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/runtime/op_support.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::runtime {

struct SummaryOptions {
  // Shapes for inputs with symbolic dims; a leading symbolic dim not given
  // here counts as 1, other unresolved dims leave dependent values unresolved.
  std::map<std::string, Shape> input_shapes;
};

struct ModelSummary {
  std::vector<model::ValueInfo> inputs;            // as declared (symbolic dims kept)
  std::vector<model::ValueInfo> inferred_inputs;   // with the shapes used for inference
  std::vector<model::ValueInfo> outputs;           // as declared
  std::vector<model::ValueInfo> inferred_outputs;  // inferred where resolved, else declared
  // op type -> node count over the main graph and all subgraphs.
  std::map<std::string, int64_t> operator_counts;
  int64_t node_count = 0;
  // Elements of all initializers and Constant-node tensors (some exporters
  // store weights as Constant nodes).
  int64_t parameter_count = 0;
  int64_t parameter_bytes = 0;
  int64_t flops = 0;  // over the nodes whose shapes are known
  // Conv/Gemm/MatMul/... nodes whose FLOPs are unknown (shapes unresolved).
  std::vector<std::string> flops_unknown_nodes;
  std::vector<UnsupportedOp> unsupported;
  ShapeInferenceResult shapes;
  // Set when shape inference stopped on an error (the summary is then partial).
  std::string shape_error;
};

// Throws only for inconsistent `options` (e.g. a shape for a non-input).
ModelSummary summarize_model(const model::Model& model, const SummaryOptions& options = {});

// Multiply-accumulates of one node from its inputs' and outputs' shapes;
// -1 when a needed shape is unknown; 0 for ops that are not counted.
int64_t node_multiply_accumulates(const model::Node& node, const ShapeInferenceResult& shapes);

}  // namespace inferlab::runtime
