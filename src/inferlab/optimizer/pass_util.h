// Small helpers shared by the basic passes: questions every pass asks about
// a node (subgraphs, randomness, its domain's opset) and the one edit most
// of them make — dropping a node whose output equals one of its inputs.
#pragma once

#include <string>

#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

bool has_subgraph(const model::Node& node);
// Random ops (and Dropout) give different results per run: never folded or merged.
bool is_random_op(const model::Node& node);
// The opset of the node's domain that the model imports.
int64_t node_opset(const PassContext& context, const model::Node& node);

// Whether readers of `output` can read `input` instead (a graph output keeps
// its name, which needs `input` to come from a node that is no graph output).
bool can_bypass(GraphEditor& editor, const std::string& output, const std::string& input);
// Rewires readers of node `index`'s output `output` to `input` and removes the
// node (all its other outputs must be unused). Check can_bypass() first.
void bypass_node(GraphEditor& editor, int index, const std::string& output,
                 const std::string& input);

}  // namespace inferlab::optimizer
