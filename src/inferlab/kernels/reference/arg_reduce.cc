// ArgMax and ArgMin: the int64 index of the largest / smallest element along
// `axis` (default 0), the first one on ties unless select_last_index (opset
// 12) asks for the last. NaN counts as the extreme value, as in numpy.
#include <cmath>
#include <type_traits>

#include "inferlab/kernels/reference/axis_layout.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

Shape arg_output_shape(const NodeInfo& node, const Shape& shape, int64_t& axis) {
  const auto rank = static_cast<int64_t>(shape.size());
  axis = naming_node(node, [&] { return normalize_axis(node.attr_int("axis", 0), rank, "axis"); });
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis)
      out.push_back(shape[static_cast<size_t>(d)]);
    else if (node.attr_int("keepdims", 1) != 0)
      out.push_back(1);
  }
  return out;
}

// True when `candidate` should replace `best` as the answer.
template <typename C>
bool better(bool is_max, bool take_last, C candidate, C best) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return false;
    if (std::isnan(candidate)) return true;
  }
  if (take_last && candidate == best) return true;
  return is_max ? candidate > best : candidate < best;
}

template <typename T>
void arg_reduce(bool is_max, bool take_last, const Tensor& x, const AxisLayout& layout, Tensor& y) {
  const T* in = x.data<T>();
  int64_t* out = y.data<int64_t>();
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t i = 0; i < layout.inner; ++i) {
      const T* line = in + o * layout.axis * layout.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < layout.axis; ++k) {
        if (better(is_max, take_last, widen(line[k * layout.inner]),
                   widen(line[best * layout.inner]))) {
          best = k;
        }
      }
      out[o * layout.inner + i] = best;
    }
  }
}

OpKernel arg_kernel(const char* op_type, bool is_max) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [](InferContext& ctx) {
    check_input_type(ctx.node(), 0, ctx.input(0).dtype, kNumericTypes);
    int64_t axis = 0;
    ctx.set_output(0, DataType::kInt64, arg_output_shape(ctx.node(), ctx.input(0).shape, axis));
  };
  kernel.compute = [is_max](KernelContext& ctx) {
    const NodeInfo& node = ctx.node();
    const Tensor& x = ctx.input(0);
    check_input_type(node, 0, x.dtype(), kNumericTypes);
    int64_t axis = 0;
    const Shape shape = arg_output_shape(node, x.shape(), axis);
    const AxisLayout layout = axis_layout(x.shape(), axis);
    if (layout.axis == 0 && x.numel() == 0 && shape_numel(shape) != 0) {
      node.fail(ErrorCode::kInvalidArgument, "cannot take the index of an empty axis {}", axis);
    }
    Tensor& y = ctx.output(0, DataType::kInt64, shape);
    const bool take_last = node.attr_int("select_last_index", 0) != 0;
    visit_numeric_dtype(x.dtype(), node.op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) arg_reduce<T>(is_max, take_last, x, layout, y);
    });
  };
  return kernel;
}

}  // namespace

OpKernel arg_max_kernel() { return arg_kernel("ArgMax", true); }
OpKernel arg_min_kernel() { return arg_kernel("ArgMin", false); }

}  // namespace inferlab::kernels::reference
