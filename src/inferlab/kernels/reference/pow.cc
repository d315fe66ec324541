// Pow with numpy broadcasting. From opset 12 the exponent may have a
// different type than the base; the result has the base's type. Integer
// powers with a non-negative integer exponent are computed exactly (wrapping
// on overflow); everything else goes through double, and a double result is
// converted to an integer base type by saturate_cast (no undefined behaviour).
#include <cmath>
#include <type_traits>

#include "inferlab/kernels/reference/binary_kernel.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

TypeSet base_types(int64_t opset) {
  return opset >= 12 ? kFloatTypes | type_bit(DataType::kInt32) | type_bit(DataType::kInt64)
                     : kFloatTypes;
}

Shape check_pow_inputs(const NodeInfo& node, DataType base, DataType exponent, const Shape& a,
                       const Shape& b) {
  check_input_type(node, 0, base, base_types(node.opset()));
  if (node.opset() >= 12) {
    check_input_type(node, 1, exponent, kNumericTypes);
  } else if (exponent != base) {
    node.fail(ErrorCode::kInvalidModel, "input 1 has type {}, expected {} like input 0",
              dtype_name(exponent), dtype_name(base));
  }
  return broadcast_all(node, {a, b});
}

template <typename I>
I integer_power(I base, uint64_t exponent) {
  I result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = wrapping_mul(result, base);
    base = wrapping_mul(base, base);
    exponent >>= 1;
  }
  return result;
}

template <typename B, typename E>
B power(B base, E exponent) {
  if constexpr (std::is_integral_v<B> && std::is_integral_v<E>) {
    if (exponent >= 0) return integer_power(base, static_cast<uint64_t>(exponent));
  }
  const double value = std::pow(static_cast<double>(base), static_cast<double>(exponent));
  if constexpr (std::is_integral_v<B>) {
    return saturate_cast<B>(value);
  } else {
    return static_cast<B>(value);
  }
}

void infer_pow(InferContext& ctx) {
  const ValueFacts& a = ctx.input(0);
  const ValueFacts& b = ctx.input(1);
  ctx.set_output(0, a.dtype, check_pow_inputs(ctx.node(), a.dtype, b.dtype, a.shape, b.shape));
}

void compute_pow(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Shape shape = check_pow_inputs(node, a.dtype(), b.dtype(), a.shape(), b.shape());
  Tensor& y = ctx.output(0, a.dtype(), shape);
  visit_numeric_dtype(a.dtype(), node.op_type(), [&](auto base_tag) {
    using B = typename decltype(base_tag)::type;
    if constexpr (!std::is_same_v<B, bool>) {
      visit_numeric_dtype(b.dtype(), node.op_type(), [&](auto exponent_tag) {
        using E = typename decltype(exponent_tag)::type;
        if constexpr (!std::is_same_v<E, bool>) {
          const B* base = a.data<B>();
          const E* exponent = b.data<E>();
          B* out = y.data<B>();
          for_each_broadcast<2>(shape, {a.shape(), b.shape()}, [&](int64_t i, const auto& at) {
            out[i] = narrow<B>(power(widen(base[at[0]]), widen(exponent[at[1]])));
          });
        }
      });
    }
  });
}

}  // namespace

OpKernel pow_kernel() { return OpKernel{"Pow", 7, 18, infer_pow, compute_pow}; }

}  // namespace inferlab::kernels::reference
