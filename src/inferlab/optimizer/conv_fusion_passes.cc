// The list of the convolution fusions, sharing one label map.
#include "inferlab/optimizer/conv_fusion_passes.h"

#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer {

std::vector<std::unique_ptr<GraphPass>> conv_fusion_passes() {
  auto labels = std::make_shared<conv_fusion::FusionLabels>();
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(conv_fusion::make_batchnorm_folding_pass(labels));
  passes.push_back(conv_fusion::make_residual_add_fusion_pass(labels));
  passes.push_back(conv_fusion::make_activation_fusion_pass(labels));
  passes.push_back(conv_fusion::make_activation_affine_fusion_pass(labels));
  passes.push_back(conv_fusion::make_residual_scale_folding_pass());
  return passes;
}

}  // namespace inferlab::optimizer
