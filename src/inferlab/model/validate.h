// InferLab's own graph validation, run after import whether or not the ONNX
// checker ran: every value defined exactly once, every node input defined
// before use, no cycles, graph outputs produced; then a topological sort
// (Kahn's algorithm, stable with respect to the file's node order).
#pragma once

#include <string>

#include "inferlab/model/graph.h"

namespace inferlab::model {

// Validates `graph` and its subgraphs, sorts their nodes and fills each
// subgraph's outer_scope_inputs. `source` starts every error message.
void validate_and_sort(Graph& graph, const std::string& source);

}  // namespace inferlab::model
