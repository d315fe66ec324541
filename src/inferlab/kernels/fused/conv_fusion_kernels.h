// The ai.inferlab fused operators of convolutional models (docs/fused-ops.md):
// FusedConv = act(Conv(X, W, B) + Z), FusedGemm = act(Gemm(A, B, C)),
// FusedMatMul = act(MatMul(A, B) + bias). Each reuses the reference kernel
// of its base operator and applies the shared activation (activation.h).
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::fused {

OpKernel fused_conv_kernel();
OpKernel fused_gemm_kernel();
OpKernel fused_matmul_kernel();

// Adds the three kernels above (domain ai.inferlab, opset 1).
void register_conv_fusion_kernels(OpRegistry& registry);

}  // namespace inferlab::kernels::fused
