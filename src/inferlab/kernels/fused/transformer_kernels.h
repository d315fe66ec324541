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
// using `scratch_bytes` of scratch at `space` (64-byte aligned). The heads
// then run through `run_heads` when it computes them (returns true: output
// [batch, sequence, hidden] written, with the same scratch), else as the
// reference computes them.
class AttentionProjection {
 public:
  virtual ~AttentionProjection() = default;
  virtual void run(KernelContext& ctx, float* qkv, void* space) const = 0;
  virtual bool run_heads(KernelContext& /*ctx*/, const float* /*qkv*/, void* /*space*/,
                         float* /*output*/) const {
    return false;
  }
  size_t scratch_bytes = 0;
};
void compute_attention_projected(KernelContext& ctx, const AttentionProjection& projection);

}  // namespace inferlab::kernels::fused
