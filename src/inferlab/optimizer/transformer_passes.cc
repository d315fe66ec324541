// The transformer fusions in the order they run: layer norms first (skip
// layer norm builds on them), then GELU, then attention, whose rewrite
// leaves Transpose/Reshape pairs that the chain passes then merge.
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {

std::vector<std::unique_ptr<GraphPass>> transformer_passes() {
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(make_layernorm_fusion_pass());
  passes.push_back(make_skip_layernorm_fusion_pass());
  passes.push_back(make_gelu_fusion_pass());
  passes.push_back(make_attention_fusion_pass());
  passes.push_back(make_transpose_chain_pass());
  passes.push_back(make_reshape_chain_pass());
  return passes;
}

}  // namespace inferlab::optimizer
