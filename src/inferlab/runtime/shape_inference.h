// Shape inference with concrete input shapes: walks the graph in order and
// asks each operator's shape rule (OpKernel::infer) for its outputs' dtype and
// shape. Values known before running (initializers, Constant outputs, and
// cheap nodes whose inputs are all known, folded by running their kernel)
// feed the rules that need contents, so shape subgraphs such as
// Shape -> Gather -> Concat -> Reshape resolve. A value whose shape depends on
// data (or on an unresolved input) stays unresolved; its consumers are then
// only known at run time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"

namespace inferlab::runtime {

struct ShapeInferenceOptions {
  // Concrete shapes of graph inputs; inputs not named keep their declared
  // shape when it is static and stay unresolved otherwise.
  std::map<std::string, Shape> input_shapes;
  // An inferred tensor larger than this is an error at load, naming the node.
  int64_t max_tensor_bytes = int64_t{4} << 30;
  // Nodes whose known inputs hold at most this many elements in total are
  // folded (run at inference time) so their outputs' contents are known.
  int64_t max_fold_elements = 65536;
};

struct ShapeInferenceResult {
  // Every value of the main graph (inputs, initializers, intermediates,
  // outputs). Resolved values have a static shape; unresolved ones keep what
  // the file declared (possibly symbolic or rankless) and appear in `unresolved`.
  std::unordered_map<std::string, model::ValueInfo> values;
  // Contents known before running (initializers, constants, folded values).
  std::unordered_map<std::string, Tensor> known_values;
  std::unordered_set<std::string> unresolved;

  // The shape of a resolved value, or null.
  const model::ValueInfo* find_resolved(const std::string& name) const;
};

// Throws Error naming the model source and the node when a shape rule
// rejects the graph. Nodes without a kernel in `registry` are skipped (their
// outputs stay unresolved), so this also works for models `inspect` reports
// as unsupported.
ShapeInferenceResult infer_shapes(const model::Model& model, const ShapeInferenceOptions& options,
                                  const kernels::OpRegistry& registry);

}  // namespace inferlab::runtime
