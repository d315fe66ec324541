// The one template behind every two-input elementwise operator with numpy
// broadcasting (Add, Sub, Mul, Div, Mod, comparisons, And/Or/Xor). Like
// unary_kernel.h: an operator is a functor built from the node, callable on
// two values of the computing type; `kBoolOutput` says whether it produces
// bool (comparisons) or the input type.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "inferlab/kernels/kernel.h"
#include "inferlab/kernels/reference/broadcast.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/unary_kernel.h"

namespace inferlab::kernels::reference {

// Checks that both inputs have the same accepted type; returns the broadcast shape.
inline Shape check_binary_inputs(const NodeInfo& node, DataType a, DataType b, const Shape& a_shape,
                                 const Shape& b_shape, TypeSet allowed) {
  check_input_type(node, 0, a, allowed);
  if (b != a) {
    node.fail(ErrorCode::kInvalidModel, "input 1 has type {}, expected {} like input 0",
              dtype_name(b), dtype_name(a));
  }
  return broadcast_all(node, {a_shape, b_shape});
}

template <typename Op>
void apply_binary(const NodeInfo& node, const Tensor& a, const Tensor& b, Tensor& y) {
  const Op op(node);
  visit_numeric_dtype(a.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = arith_t<T>;
    if constexpr (std::is_invocable_v<const Op&, C, C>) {
      using R = std::conditional_t<Op::kBoolOutput, bool, T>;
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      R* out = y.data<R>();
      for_each_broadcast<2>(y.shape(), {a.shape(), b.shape()}, [&](int64_t i, const auto& at) {
        out[i] = narrow<R>(op(widen(pa[at[0]]), widen(pb[at[1]])));
      });
    } else {
      node.fail(ErrorCode::kUnsupported, "element type {} is not supported", dtype_name(a.dtype()));
    }
  });
}

template <typename Op>
OpKernel binary_kernel(std::string op_type, int64_t min_opset, TypesAtOpset types) {
  OpKernel kernel;
  kernel.op_type = std::move(op_type);
  kernel.min_opset = min_opset;
  kernel.infer = [types](InferContext& ctx) {
    const ValueFacts& a = ctx.input(0);
    const ValueFacts& b = ctx.input(1);
    Shape shape = check_binary_inputs(ctx.node(), a.dtype, b.dtype, a.shape, b.shape,
                                      types(ctx.node().opset()));
    const Op validate_attributes(ctx.node());
    (void)validate_attributes;
    ctx.set_output(0, Op::kBoolOutput ? DataType::kBool : a.dtype, std::move(shape));
  };
  kernel.compute = [types](KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Shape shape = check_binary_inputs(ctx.node(), a.dtype(), b.dtype(), a.shape(), b.shape(),
                                            types(ctx.node().opset()));
    Tensor& y = ctx.output(0, Op::kBoolOutput ? DataType::kBool : a.dtype(), shape);
    apply_binary<Op>(ctx.node(), a, b, y);
  };
  return kernel;
}

}  // namespace inferlab::kernels::reference
