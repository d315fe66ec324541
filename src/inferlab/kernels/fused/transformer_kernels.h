// Kernels of the transformer fusions (docs/fused-ops.md): ONNX Runtime's
// com.microsoft Gelu, FastGelu, BiasGelu, SkipLayerNormalization and
// Attention with exactly its semantics, and ai.inferlab::LayerNormalization
// (ONNX-17 LayerNormalization for models whose default opset is older).
// FP32 only; each operator lives in its own file here.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::fused {

void register_transformer_kernels(OpRegistry& registry);

OpKernel gelu_kernel();                      // com.microsoft::Gelu
OpKernel fast_gelu_kernel();                 // com.microsoft::FastGelu
OpKernel bias_gelu_kernel();                 // com.microsoft::BiasGelu
OpKernel skip_layer_normalization_kernel();  // com.microsoft::SkipLayerNormalization
OpKernel attention_kernel();                 // com.microsoft::Attention
OpKernel layer_normalization_kernel();       // ai.inferlab::LayerNormalization

// Attention's Q/K/V projection done by someone else (the oneDNN kernel):
// `run` writes qkv [batch * sequence, 3 * hidden] = input x weights + bias,
// using `scratch_bytes` of scratch at `space` (64-byte aligned). The heads are then computed as the
// reference does.
class AttentionProjection {
 public:
  virtual ~AttentionProjection() = default;
  virtual void run(KernelContext& ctx, float* qkv, void* space) const = 0;
  size_t scratch_bytes = 0;
};
void compute_attention_projected(KernelContext& ctx, const AttentionProjection& projection);

}  // namespace inferlab::kernels::fused
