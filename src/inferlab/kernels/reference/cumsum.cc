// CumSum: running sums along the axis given by input 1 (a scalar), optionally
// exclusive (each output leaves out its own element) and/or reversed.
// Floats accumulate in double, integers wrap.
#include <type_traits>

#include "inferlab/kernels/reference/axis_layout.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

constexpr TypeSet kCumSumTypes = kFloatTypes | type_bit(DataType::kInt32) |
                                 type_bit(DataType::kInt64) | type_bit(DataType::kUint32) |
                                 type_bit(DataType::kUint64);

int64_t cumsum_axis(const NodeInfo& node, const Tensor& axis, int64_t rank) {
  if (axis.numel() != 1) {
    node.fail(ErrorCode::kInvalidArgument, "axis input must be a scalar, got shape {}",
              shape_to_string(axis.shape()));
  }
  return naming_node(node, [&] { return normalize_axis(axis.to_int64_vector()[0], rank, "axis"); });
}

template <typename Acc>
Acc add(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    return wrapping_add(a, b);
  } else {
    return a + b;
  }
}

template <typename T>
void cumulative_sum(const Tensor& x, const AxisLayout& layout, bool exclusive, bool reverse,
                    Tensor& y) {
  using C = arith_t<T>;
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double, C>;
  const T* in = x.data<T>();
  T* out = y.data<T>();
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t i = 0; i < layout.inner; ++i) {
      const int64_t start = o * layout.axis * layout.inner + i;
      Acc sum{0};
      for (int64_t step = 0; step < layout.axis; ++step) {
        const int64_t k = reverse ? layout.axis - 1 - step : step;
        const int64_t at = start + k * layout.inner;
        const Acc value = static_cast<Acc>(widen(in[at]));
        if (!exclusive) sum = add(sum, value);
        out[at] = narrow<T>(static_cast<C>(sum));
        if (exclusive) sum = add(sum, value);
      }
    }
  }
}

void infer_cumsum(InferContext& ctx) {
  const ValueFacts& x = ctx.input(0);
  check_input_type(ctx.node(), 0, x.dtype, kCumSumTypes);
  check_input_type(ctx.node(), 1, ctx.input(1).dtype,
                   type_bit(DataType::kInt32) | type_bit(DataType::kInt64));
  if (ctx.input(1).value != nullptr) {
    cumsum_axis(ctx.node(), *ctx.input(1).value, static_cast<int64_t>(x.shape.size()));
  }
  ctx.set_output(0, x.dtype, x.shape);
}

void compute_cumsum(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& x = ctx.input(0);
  check_input_type(node, 0, x.dtype(), kCumSumTypes);
  const int64_t axis = cumsum_axis(node, ctx.input(1), x.rank());
  const AxisLayout layout = axis_layout(x.shape(), axis);
  const bool exclusive = node.attr_int("exclusive", 0) != 0;
  const bool reverse = node.attr_int("reverse", 0) != 0;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  visit_numeric_dtype(x.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) cumulative_sum<T>(x, layout, exclusive, reverse, y);
  });
}

}  // namespace

OpKernel cumsum_kernel() { return OpKernel{"CumSum", 11, 18, infer_cumsum, compute_cumsum}; }

}  // namespace inferlab::kernels::reference
