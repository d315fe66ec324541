// The list of fast kernels, one line per file, and the wrapping that keeps
// the reference kernel as the fallback.
#include "inferlab/kernels/cpu/fast_kernels.h"

#include <utility>

namespace inferlab::kernels::cpu {

void replace_compute(OpRegistry& registry, const char* domain, const char* op_type,
                     FastCompute fast) {
  const OpKernel* base = registry.find_any(domain, op_type);
  if (base == nullptr) return;
  OpKernel kernel = *base;
  kernel.library = "InferLab";
  kernel.compute = [reference = base->compute, fast = std::move(fast)](KernelContext& ctx) {
    if (!fast(ctx)) reference(ctx);
  };
  registry.add(std::move(kernel));
}

void add_fast_kernels(OpRegistry& registry, Isa isa) {
  const KernelTable& table = kernel_table(isa);
  add_unary_kernels(registry, table);
  add_binary_kernels(registry, table);
  add_softmax_kernel(registry, table);
  add_layer_normalization_kernels(registry, table);
  add_gelu_kernels(registry, table);
  add_resize_kernel(registry);
  add_concat_kernel(registry);
  add_global_average_pool_kernel(registry, table);
  add_batch_normalization_kernel(registry);
}

}  // namespace inferlab::kernels::cpu
