// The pass classes behind conv_fusion_passes(); separate so each lives in
// its own file and the unit tests can build one alone.
#pragma once

#include <memory>

#include "inferlab/optimizer/conv_fusion_util.h"
#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer::conv_fusion {

// Each pass records the chains it fused into `labels` (shared by the passes
// of one list) so later passes name the whole chain in the log.
std::unique_ptr<GraphPass> make_batchnorm_folding_pass(std::shared_ptr<FusionLabels> labels);
std::unique_ptr<GraphPass> make_residual_add_fusion_pass(std::shared_ptr<FusionLabels> labels);
std::unique_ptr<GraphPass> make_activation_fusion_pass(std::shared_ptr<FusionLabels> labels);
std::unique_ptr<GraphPass> make_activation_affine_fusion_pass(std::shared_ptr<FusionLabels> labels);
std::unique_ptr<GraphPass> make_residual_scale_folding_pass();

}  // namespace inferlab::optimizer::conv_fusion
