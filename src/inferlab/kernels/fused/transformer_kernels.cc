// Registration of the transformer fusion kernels (one line per operator).
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::fused {

void register_transformer_kernels(OpRegistry& registry) {
  registry.add(gelu_kernel());
  registry.add(fast_gelu_kernel());
  registry.add(bias_gelu_kernel());
  registry.add(skip_layer_normalization_kernel());
  registry.add(attention_kernel());
  registry.add(layer_normalization_kernel());
}

}  // namespace inferlab::kernels::fused
