// Variadic elementwise operators with numpy broadcasting (Max, Min, Mean,
// Sum): the output starts as input 0 broadcast to the common shape and each
// further input is folded in. Also Where (a three-input broadcast).
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/broadcast.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

enum class Fold { kMax, kMin, kSum, kMean };

template <typename C>
C fold_pair(Fold fold, C a, C b) {
  switch (fold) {
    case Fold::kMax:
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(b)) return b;  // NaN propagates, as numpy.maximum does
      }
      return a >= b ? a : b;
    case Fold::kMin:
      if constexpr (std::is_floating_point_v<C>) {
        if (std::isnan(b)) return b;
      }
      return a <= b ? a : b;
    case Fold::kSum:
    case Fold::kMean:
      if constexpr (std::is_integral_v<C>)
        return wrapping_add(a, b);
      else
        return a + b;
  }
  return a;
}

TypeSet fold_types(Fold fold) {
  return fold == Fold::kMax || fold == Fold::kMin ? kNumericTypes : kFloatTypes;
}

Shape check_variadic(const NodeInfo& node, Fold fold, const std::vector<DataType>& dtypes,
                     const std::vector<Shape>& shapes) {
  if (dtypes.empty()) node.fail(ErrorCode::kInvalidModel, "needs at least one input");
  check_input_type(node, 0, dtypes[0], fold_types(fold));
  for (size_t i = 1; i < dtypes.size(); ++i) {
    if (dtypes[i] != dtypes[0]) {
      node.fail(ErrorCode::kInvalidModel, "input {} has type {}, expected {} like input 0", i,
                dtype_name(dtypes[i]), dtype_name(dtypes[0]));
    }
  }
  return broadcast_all(node, shapes);
}

template <typename T>
void fold_inputs(Fold fold, const std::vector<const Tensor*>& inputs, Tensor& y) {
  T* out = y.data<T>();
  const T* first = inputs[0]->data<T>();
  for_each_broadcast<1>(y.shape(), {inputs[0]->shape()},
                        [&](int64_t i, const auto& at) { out[i] = first[at[0]]; });
  for (size_t k = 1; k < inputs.size(); ++k) {
    const T* in = inputs[k]->data<T>();
    for_each_broadcast<1>(y.shape(), {inputs[k]->shape()}, [&](int64_t i, const auto& at) {
      out[i] = narrow<T>(fold_pair(fold, widen(out[i]), widen(in[at[0]])));
    });
  }
  if (fold == Fold::kMean) {
    if constexpr (!std::is_integral_v<T>) {
      const auto count = static_cast<arith_t<T>>(inputs.size());
      for (int64_t i = 0; i < y.numel(); ++i) out[i] = narrow<T>(widen(out[i]) / count);
    }
  }
}

OpKernel variadic_kernel(const char* op_type, Fold fold) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [fold](InferContext& ctx) {
    std::vector<DataType> dtypes;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      dtypes.push_back(ctx.input(i).dtype);
      shapes.push_back(ctx.input(i).shape);
    }
    Shape shape = check_variadic(ctx.node(), fold, dtypes, shapes);
    ctx.set_output(0, dtypes[0], std::move(shape));
  };
  kernel.compute = [fold](KernelContext& ctx) {
    std::vector<const Tensor*> inputs;
    std::vector<DataType> dtypes;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      inputs.push_back(&ctx.input(i));
      dtypes.push_back(inputs.back()->dtype());
      shapes.push_back(inputs.back()->shape());
    }
    const Shape shape = check_variadic(ctx.node(), fold, dtypes, shapes);
    Tensor& y = ctx.output(0, dtypes[0], shape);
    visit_numeric_dtype(dtypes[0], ctx.node().op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) fold_inputs<T>(fold, inputs, y);
    });
  };
  return kernel;
}

Shape check_where(const NodeInfo& node, const std::vector<DataType>& dtypes,
                  const std::vector<Shape>& shapes) {
  check_input_type(node, 0, dtypes[0], kBoolType);
  check_input_type(node, 1, dtypes[1], kAllTypes);
  if (dtypes[2] != dtypes[1]) {
    node.fail(ErrorCode::kInvalidModel, "input 2 has type {}, expected {} like input 1",
              dtype_name(dtypes[2]), dtype_name(dtypes[1]));
  }
  return broadcast_all(node, shapes);
}

void infer_where(InferContext& ctx) {
  const std::vector<DataType> dtypes{ctx.input(0).dtype, ctx.input(1).dtype, ctx.input(2).dtype};
  const std::vector<Shape> shapes{ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape};
  ctx.set_output(0, dtypes[1], check_where(ctx.node(), dtypes, shapes));
}

void compute_where(KernelContext& ctx) {
  const Tensor& condition = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  const Shape shape = check_where(ctx.node(), {condition.dtype(), x.dtype(), y.dtype()},
                                  {condition.shape(), x.shape(), y.shape()});
  Tensor& out = ctx.output(0, x.dtype(), shape);
  visit_any_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool* pick_x = condition.data<bool>();
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    for_each_broadcast<3>(
        shape, {condition.shape(), x.shape(), y.shape()},
        [&](int64_t i, const auto& at) { po[i] = pick_x[at[0]] ? px[at[1]] : py[at[2]]; });
  });
}

}  // namespace

std::vector<OpKernel> variadic_kernels() {
  return {
      variadic_kernel("Max", Fold::kMax),
      variadic_kernel("Min", Fold::kMin),
      variadic_kernel("Mean", Fold::kMean),
      variadic_kernel("Sum", Fold::kSum),
  };
}

OpKernel where_kernel() { return OpKernel{"Where", 9, 18, infer_where, compute_where}; }

}  // namespace inferlab::kernels::reference
