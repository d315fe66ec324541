// Reduce* operators (L1, L2, LogSumExp, Max, Min, Mean, Prod, Sum, SumSquare)
// over a set of axes. Axes come from the `axes` attribute, or, for ReduceSum
// from opset 13 and every Reduce* from opset 18, from optional input 1; empty
// axes reduce everything unless noop_with_empty_axes is set. One walk serves
// all of them: the offsets of one reduction window are listed once, then each
// output element adds its own base offset. Floats accumulate in double,
// integers in 64 bits (wrapping), so a reduction of an empty window gives the
// identity (0, 1, -inf, +inf).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

enum class Reduction { kL1, kL2, kLogSumExp, kMax, kMin, kMean, kProd, kSum, kSumSquare };

struct ReducePlan {
  Shape out_shape;
  std::vector<bool> reduced;  // per input dim
  bool identity = false;      // noop_with_empty_axes with empty axes: output = input
};

ReducePlan plan_reduction(const NodeInfo& node, const Shape& shape,
                          const std::vector<int64_t>& axes) {
  const auto rank = static_cast<int64_t>(shape.size());
  ReducePlan plan;
  plan.reduced.assign(shape.size(), axes.empty());
  if (axes.empty() && node.attr_int("noop_with_empty_axes", 0) != 0) {
    plan.identity = true;
    plan.reduced.assign(shape.size(), false);
  }
  for (int64_t axis : axes) {
    plan.reduced[static_cast<size_t>(
        naming_node(node, [&] { return normalize_axis(axis, rank, "axes"); }))] = true;
  }
  const bool keepdims = node.attr_int("keepdims", 1) != 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!plan.reduced[d])
      plan.out_shape.push_back(shape[d]);
    else if (keepdims)
      plan.out_shape.push_back(1);
  }
  return plan;
}

// Axes from input 1 when given (null when its value is not known yet), else the attribute.
std::optional<std::vector<int64_t>> axes_of(const NodeInfo& node, const Tensor* axes_input) {
  if (axes_input != nullptr) return axes_input->to_int64_vector();
  return node.attr_ints("axes", {});
}

// A double result (L2, LogSumExp) in the computing type; integers saturate.
template <typename C>
C narrow_double(double value) {
  if constexpr (std::is_integral_v<C>) {
    return saturate_cast<C>(value);
  } else {
    return static_cast<C>(value);
  }
}

template <typename Acc>
Acc initial_value(Reduction reduction) {
  switch (reduction) {
    case Reduction::kMax:
      return std::is_floating_point_v<Acc> ? -std::numeric_limits<Acc>::infinity()
                                           : std::numeric_limits<Acc>::lowest();
    case Reduction::kMin:
      return std::is_floating_point_v<Acc> ? std::numeric_limits<Acc>::infinity()
                                           : std::numeric_limits<Acc>::max();
    case Reduction::kProd:
      return Acc{1};
    default:
      return Acc{0};
  }
}

template <typename Acc>
Acc add(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    return wrapping_add(a, b);
  } else {
    return a + b;
  }
}

template <typename Acc>
Acc multiply(Acc a, Acc b) {
  if constexpr (std::is_integral_v<Acc>) {
    return wrapping_mul(a, b);
  } else {
    return a * b;
  }
}

template <typename Acc>
Acc accumulate(Reduction reduction, Acc acc, Acc value) {
  switch (reduction) {
    case Reduction::kL1:
      if constexpr (std::is_integral_v<Acc> && std::is_signed_v<Acc>) {
        value = value < 0 ? wrapping_sub(Acc{0}, value) : value;
      } else if constexpr (std::is_floating_point_v<Acc>) {
        value = std::fabs(value);
      }
      return add(acc, value);
    case Reduction::kL2:
    case Reduction::kSumSquare:
      return add(acc, multiply(value, value));
    case Reduction::kMax:
      return std::isnan(static_cast<double>(value)) || value > acc ? value : acc;
    case Reduction::kMin:
      return std::isnan(static_cast<double>(value)) || value < acc ? value : acc;
    case Reduction::kProd:
      return multiply(acc, value);
    default:
      return add(acc, value);  // Sum, Mean
  }
}

// Reduces the window at `base` (offsets listed in `window`) to the computing type C.
template <typename T, typename C = arith_t<T>>
C reduce_window(Reduction reduction, const T* in, int64_t base,
                const std::vector<int64_t>& window) {
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double,
                                 std::conditional_t<std::is_signed_v<C>, int64_t, uint64_t>>;
  if (reduction == Reduction::kLogSumExp) {
    double peak = -std::numeric_limits<double>::infinity();
    for (int64_t offset : window)
      peak = std::max(peak, static_cast<double>(widen(in[base + offset])));
    if (!std::isfinite(peak)) peak = 0;
    double sum = 0;
    for (int64_t offset : window)
      sum += std::exp(static_cast<double>(widen(in[base + offset])) - peak);
    return narrow_double<C>(std::log(sum) + peak);
  }
  Acc acc = initial_value<Acc>(reduction);
  for (int64_t offset : window) {
    acc = accumulate<Acc>(reduction, acc, static_cast<Acc>(widen(in[base + offset])));
  }
  if (reduction == Reduction::kL2) return narrow_double<C>(std::sqrt(static_cast<double>(acc)));
  if (reduction == Reduction::kMean) {
    if constexpr (std::is_integral_v<Acc>) {
      return window.empty() ? C{0} : static_cast<C>(acc / static_cast<Acc>(window.size()));
    } else {
      return static_cast<C>(acc / static_cast<double>(window.size()));
    }
  }
  return static_cast<C>(acc);
}

// Offsets (in elements) of every position in one reduction window.
std::vector<int64_t> window_offsets(const Shape& shape, const std::vector<bool>& reduced) {
  const std::vector<int64_t> strides = shape_strides(shape);
  std::vector<int64_t> offsets{0};
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) continue;
    std::vector<int64_t> grown;
    grown.reserve(offsets.size() * static_cast<size_t>(shape[d]));
    for (int64_t offset : offsets) {
      for (int64_t j = 0; j < shape[d]; ++j) grown.push_back(offset + j * strides[d]);
    }
    offsets = std::move(grown);
  }
  return offsets;
}

template <typename T>
void reduce_tensor(Reduction reduction, const Tensor& x, const ReducePlan& plan, Tensor& y) {
  const Shape& shape = x.shape();
  const std::vector<int64_t> window = window_offsets(shape, plan.reduced);
  const std::vector<int64_t> strides = shape_strides(shape);
  const T* in = x.data<T>();
  T* out = y.data<T>();
  // Odometer over the kept dims, in order: output elements are produced in row-major order.
  std::vector<size_t> kept;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!plan.reduced[d]) kept.push_back(d);
  }
  std::vector<int64_t> counter(kept.size(), 0);
  int64_t base = 0;
  for (int64_t o = 0; o < y.numel(); ++o) {
    out[o] = narrow<T>(reduce_window<T>(reduction, in, base, window));
    for (size_t k = kept.size(); k-- > 0;) {
      const size_t d = kept[k];
      base += strides[d];
      if (++counter[k] < shape[d]) break;
      base -= strides[d] * shape[d];
      counter[k] = 0;
    }
  }
}

void infer_reduce(InferContext& ctx) {
  const ValueFacts& x = ctx.input(0);
  check_input_type(ctx.node(), 0, x.dtype, kNumericTypes);
  const bool axes_given = ctx.has_input(1);
  if (axes_given && ctx.input(1).value == nullptr) {
    ctx.set_output_dynamic(0, x.dtype);
    return;
  }
  const auto axes = axes_of(ctx.node(), axes_given ? ctx.input(1).value : nullptr);
  ctx.set_output(0, x.dtype, plan_reduction(ctx.node(), x.shape, *axes).out_shape);
}

void compute_reduce(Reduction reduction, KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  check_input_type(ctx.node(), 0, x.dtype(), kNumericTypes);
  const auto axes = axes_of(ctx.node(), ctx.has_input(1) ? &ctx.input(1) : nullptr);
  const ReducePlan plan = plan_reduction(ctx.node(), x.shape(), *axes);
  if (plan.identity) {
    ctx.set_output(0, x.clone());
    return;
  }
  Tensor& y = ctx.output(0, x.dtype(), plan.out_shape);
  visit_numeric_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) reduce_tensor<T>(reduction, x, plan, y);
  });
}

OpKernel reduce_kernel(const char* op_type, Reduction reduction) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = infer_reduce;
  kernel.compute = [reduction](KernelContext& ctx) { compute_reduce(reduction, ctx); };
  return kernel;
}

}  // namespace

std::vector<OpKernel> reduce_kernels() {
  return {
      reduce_kernel("ReduceL1", Reduction::kL1),
      reduce_kernel("ReduceL2", Reduction::kL2),
      reduce_kernel("ReduceLogSumExp", Reduction::kLogSumExp),
      reduce_kernel("ReduceMax", Reduction::kMax),
      reduce_kernel("ReduceMin", Reduction::kMin),
      reduce_kernel("ReduceMean", Reduction::kMean),
      reduce_kernel("ReduceProd", Reduction::kProd),
      reduce_kernel("ReduceSum", Reduction::kSum),
      reduce_kernel("ReduceSumSquare", Reduction::kSumSquare),
  };
}

}  // namespace inferlab::kernels::reference
