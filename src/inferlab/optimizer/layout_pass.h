// The level-3 layout pass (layout_pass.cc): channels-last activations
// across convolution chains. It runs once, after the sweeps of the other
// passes have settled, because the fusions before it assume channels-first
// tensors (a per-channel constant folded into a convolution, say).
#pragma once

#include <memory>

#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

std::unique_ptr<GraphPass> make_channels_last_layout_pass();

}  // namespace inferlab::optimizer
