// The elementwise area's registry list. Families built from one template
// (unary math, activations, binary, variadic, reductions) register in a loop;
// their member lists are in the files that define them.
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {

void register_elementwise_ops(OpRegistry& registry) {
  for (auto& kernel : unary_math_kernels()) registry.add(std::move(kernel));
  for (auto& kernel : activation_kernels()) registry.add(std::move(kernel));
  for (auto& kernel : binary_kernels()) registry.add(std::move(kernel));
  for (auto& kernel : variadic_kernels()) registry.add(std::move(kernel));
  for (auto& kernel : reduce_kernels()) registry.add(std::move(kernel));
  registry.add(clip_kernel());
  registry.add(prelu_kernel());
  registry.add(pow_kernel());
  registry.add(where_kernel());
  registry.add(cast_kernel());
  registry.add(cast_like_kernel());
  registry.add(arg_max_kernel());
  registry.add(arg_min_kernel());
  registry.add(cumsum_kernel());
  registry.add(softmax_kernel());
  registry.add(log_softmax_kernel());
}

}  // namespace inferlab::kernels::reference
