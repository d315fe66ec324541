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

}  // namespace inferlab::kernels::fused
