// The neural-network operators' registry lines.
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {

void register_nn_ops(OpRegistry& registry) {
  registry.add(conv_kernel());
  registry.add(conv_transpose_kernel());
  registry.add(average_pool_kernel());
  registry.add(max_pool_kernel());
  registry.add(global_average_pool_kernel());
  registry.add(global_max_pool_kernel());
  registry.add(batch_normalization_kernel());
  registry.add(instance_normalization_kernel());
  registry.add(layer_normalization_kernel());
  registry.add(lrn_kernel());
  registry.add(gemm_kernel());
  registry.add(matmul_kernel());
  registry.add(einsum_kernel());
  registry.add(dropout_kernel());
}

}  // namespace inferlab::kernels::reference
