// The ai.inferlab fused operators of convolutional models (docs/fused-ops.md):
// FusedConv = act(Conv(X, W, B) + Z), FusedGemm = act(Gemm(A, B, C)),
// FusedMatMul = act(MatMul(A, B) + bias). Each reuses the reference kernel
// of its base operator and applies the shared activation (activation.h).
// Also HardSwish, the ONNX-14 operator for older models, which the
// optimizer's hardswish_fusion emits and activation_fusion folds into them.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::fused {

OpKernel fused_conv_kernel();
OpKernel fused_gemm_kernel();
OpKernel fused_matmul_kernel();
// ai.inferlab::HardSwish: ONNX-14 HardSwish below opset 14 (hard_swish.cc).
OpKernel hard_swish_kernel();

// Adds the four kernels above (domain ai.inferlab, opset 1).
void register_conv_fusion_kernels(OpRegistry& registry);

}  // namespace inferlab::kernels::fused
