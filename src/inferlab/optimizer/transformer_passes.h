// The level-2 transformer fusions (docs/optimizer.md, "Extended passes"):
// layernorm_fusion, skip_layernorm_fusion, gelu_fusion, attention_fusion,
// transpose_chain and reshape_chain, in the order they run. They run before
// the Conv/Gemm/MatMul activation fusions so a Gelu they create can be
// fused into the MatMul before it. Operators they emit: docs/fused-ops.md.
#pragma once

#include <memory>
#include <vector>

#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

std::unique_ptr<GraphPass> make_layernorm_fusion_pass();
std::unique_ptr<GraphPass> make_skip_layernorm_fusion_pass();
std::unique_ptr<GraphPass> make_gelu_fusion_pass();
std::unique_ptr<GraphPass> make_attention_fusion_pass();
std::unique_ptr<GraphPass> make_transpose_chain_pass();
std::unique_ptr<GraphPass> make_reshape_chain_pass();

std::vector<std::unique_ptr<GraphPass>> transformer_passes();

}  // namespace inferlab::optimizer
