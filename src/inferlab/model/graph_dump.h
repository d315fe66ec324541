// A readable text dump of the graph IR, for `inferlab inspect`, debugging and
// tests: inputs, outputs, initializers, then one line per node
// `name: Op(inputs) -> outputs {attrs}` with subgraphs indented beneath.
#pragma once

#include <string>

#include "inferlab/model/graph.h"

namespace inferlab::model {

std::string dump_graph(const Model& model);
std::string dump_graph(const Graph& graph, int indent = 0);

}  // namespace inferlab::model
