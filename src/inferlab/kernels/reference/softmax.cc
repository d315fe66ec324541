// Softmax and LogSoftmax. Before opset 13 the input is seen as a matrix
// [prod(dims before axis), prod(dims from axis)] (axis default 1) and each
// row is normalized; from opset 13 the normalization runs along `axis` alone
// (default -1). The maximum is subtracted first so exp never overflows;
// sums are taken in double.
#include <algorithm>
#include <cmath>
#include <limits>

#include "inferlab/kernels/reference/axis_layout.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

AxisLayout softmax_layout(const NodeInfo& node, const Shape& shape) {
  const auto rank = static_cast<int64_t>(shape.size());
  if (node.opset() >= 13) {
    return axis_layout(shape, naming_node(node, [&] {
                         return normalize_axis(node.attr_int("axis", -1), rank, "axis");
                       }));
  }
  // Coerced to 2-D: axis == rank is allowed and makes every element its own row.
  int64_t axis = node.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    node.fail(ErrorCode::kInvalidArgument, "axis {} is out of range for rank {}",
              node.attr_int("axis", 1), rank);
  }
  AxisLayout layout;
  layout.axis = 1;
  for (int64_t d = 0; d < rank; ++d) {
    (d < axis ? layout.outer : layout.axis) *= shape[static_cast<size_t>(d)];
  }
  return layout;
}

template <typename T>
void softmax(bool log_form, const Tensor& x, const AxisLayout& layout, Tensor& y) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t i = 0; i < layout.inner; ++i) {
      const int64_t start = o * layout.axis * layout.inner + i;
      auto at = [&](int64_t k) { return start + k * layout.inner; };
      double peak = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < layout.axis; ++k) {
        peak = std::max(peak, static_cast<double>(widen(in[at(k)])));
      }
      double sum = 0;
      for (int64_t k = 0; k < layout.axis; ++k) {
        sum += std::exp(static_cast<double>(widen(in[at(k)])) - peak);
      }
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < layout.axis; ++k) {
        const double shifted = static_cast<double>(widen(in[at(k)])) - peak;
        out[at(k)] = narrow<T>(log_form ? shifted - log_sum : std::exp(shifted) / sum);
      }
    }
  }
}

OpKernel softmax_kernel(const char* op_type, bool log_form) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& x = ctx.input(0);
    check_input_type(ctx.node(), 0, x.dtype, kFloatTypes);
    softmax_layout(ctx.node(), x.shape);
    ctx.set_output(0, x.dtype, x.shape);
  };
  kernel.compute = [log_form](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    check_input_type(ctx.node(), 0, x.dtype(), kFloatTypes);
    const AxisLayout layout = softmax_layout(ctx.node(), x.shape());
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    visit_numeric_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) softmax<T>(log_form, x, layout, y);
    });
  };
  return kernel;
}

}  // namespace

OpKernel softmax_kernel() { return softmax_kernel("Softmax", false); }
OpKernel log_softmax_kernel() { return softmax_kernel("LogSoftmax", true); }

}  // namespace inferlab::kernels::reference
