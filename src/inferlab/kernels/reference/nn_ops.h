// Registration of the reference kernels of this area (convolution, pooling,
// normalization, matrix products, dropout): one factory per operator, each
// defined in kernels/reference/<op>.cc, and one registry line in nn_ops.cc.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

void register_nn_ops(OpRegistry& registry);

OpKernel conv_kernel();
OpKernel conv_transpose_kernel();
OpKernel average_pool_kernel();
OpKernel max_pool_kernel();
OpKernel global_average_pool_kernel();
OpKernel global_max_pool_kernel();
OpKernel batch_normalization_kernel();
OpKernel instance_normalization_kernel();
OpKernel layer_normalization_kernel();
OpKernel lrn_kernel();
OpKernel gemm_kernel();
OpKernel matmul_kernel();
OpKernel einsum_kernel();
OpKernel dropout_kernel();

}  // namespace inferlab::kernels::reference
