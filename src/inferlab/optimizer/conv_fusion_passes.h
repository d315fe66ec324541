// The level-2 fusions of convolutional models (docs/optimizer.md, "Extended
// passes"): batchnorm_folding, residual_add_fusion, activation_fusion, in
// the order they run. They produce the ai.inferlab FusedConv, FusedGemm and
// FusedMatMul of docs/fused-ops.md.
#pragma once

#include <memory>
#include <vector>

#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

std::vector<std::unique_ptr<GraphPass>> conv_fusion_passes();

}  // namespace inferlab::optimizer
