// The one template behind every one-input, same-shape, same-type operator
// (Abs..Tanh, Relu, Elu, Selu, ...). An operator is a small functor: built
// from the node (to read its attributes) and callable on the computing type;
// a `requires` clause on its call operator states which C++ types it accepts,
// and a TypeSet states which ONNX types the node may carry.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "inferlab/kernels/kernel.h"
#include "inferlab/kernels/reference/element_types.h"

namespace inferlab::kernels::reference {

// The ONNX types an operator accepts at a given opset.
using TypesAtOpset = TypeSet (*)(int64_t opset);

template <typename Op>
void apply_unary(const NodeInfo& node, const Tensor& x, Tensor& y) {
  const Op op(node);
  visit_numeric_dtype(x.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = arith_t<T>;
    if constexpr (std::is_invocable_v<const Op&, C>) {
      const T* in = x.data<T>();
      T* out = y.data<T>();
      const int64_t count = x.numel();
      for (int64_t i = 0; i < count; ++i) out[i] = narrow<T>(op(widen(in[i])));
    } else {
      node.fail(ErrorCode::kUnsupported, "element type {} is not supported", dtype_name(x.dtype()));
    }
  });
}

template <typename Op>
OpKernel unary_kernel(std::string op_type, int64_t min_opset, TypesAtOpset types) {
  OpKernel kernel;
  kernel.op_type = std::move(op_type);
  kernel.min_opset = min_opset;
  kernel.infer = [types](InferContext& ctx) {
    const ValueFacts& x = ctx.input(0);
    check_input_type(ctx.node(), 0, x.dtype, types(ctx.node().opset()));
    const Op validate_attributes(ctx.node());
    (void)validate_attributes;
    ctx.set_output(0, x.dtype, x.shape);
  };
  kernel.compute = [types](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_input_type(ctx.node(), 0, x.dtype(), types(ctx.node().opset()));
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    apply_unary<Op>(ctx.node(), x, y);
  };
  return kernel;
}

}  // namespace inferlab::kernels::reference
