// The level-1 (basic) passes: folding, elimination, sharing. Each lives in
// its own file; docs/optimizer.md says what each does and when it must not
// fire.
#pragma once

#include <memory>
#include <vector>

#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

std::unique_ptr<GraphPass> make_constant_folding_pass();
std::unique_ptr<GraphPass> make_noop_elimination_pass();
std::unique_ptr<GraphPass> make_pad_folding_pass();
std::unique_ptr<GraphPass> make_constant_sharing_pass();
std::unique_ptr<GraphPass> make_common_subexpression_elimination_pass();
std::unique_ptr<GraphPass> make_dead_node_elimination_pass();

// The basic passes in the order they run.
std::vector<std::unique_ptr<GraphPass>> basic_passes();

}  // namespace inferlab::optimizer
