#include "inferlab/kernels/dnnl/dnnl_kernels.h"

namespace inferlab::kernels::dnnl_backend {

void add_dnnl_kernels(OpRegistry& registry, cpu::Isa isa) {
  add_dnnl_conv_kernels(registry, cpu::kernel_table(isa));
  add_dnnl_conv_transpose_kernel(registry, cpu::kernel_table(isa));
  add_dnnl_matmul_kernels(registry, cpu::kernel_table(isa));
  add_dnnl_pool_kernels(registry);
  add_dnnl_attention_kernel(registry, cpu::kernel_table(isa));
  add_dnnl_transpose_kernel(registry);
}

}  // namespace inferlab::kernels::dnnl_backend
