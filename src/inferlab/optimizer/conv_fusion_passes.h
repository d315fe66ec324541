// The level-2 fusions of convolutional models (docs/optimizer.md, "Extended
// passes"): batchnorm_folding, residual_add_fusion, activation_fusion,
// activation_affine_fusion, residual_scale_folding, in the order they run. They produce the
// ai.inferlab FusedConv, FusedGemm and FusedMatMul of docs/fused-ops.md.
#pragma once

#include <memory>
#include <vector>

#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

std::vector<std::unique_ptr<GraphPass>> conv_fusion_passes();

// hardswish_fusion (hardswish_fusion.cc): HardSwish spelled out as
// x * Clip(x + 3, 0, 6) / 6 or x * HardSigmoid(x; 1/6, 0.5) becomes one
// HardSwish node. Runs just before conv_fusion_passes() (pass_list.cc) so
// activation_fusion finds a single activation after the Conv.
std::unique_ptr<GraphPass> make_hardswish_fusion_pass();

}  // namespace inferlab::optimizer
