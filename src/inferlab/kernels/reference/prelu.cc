// PRelu: y = x < 0 ? slope * x : x, with slope broadcast unidirectionally to
// x's shape. Models written for opset < 7 semantics sometimes carry a [C]
// slope for an N x C x ... input; when plain broadcasting fails, such a slope
// is read per channel (as [C, 1, ..., 1]) instead of being rejected.
#include "inferlab/kernels/reference/broadcast.h"
#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

TypeSet prelu_types(int64_t opset) { return opset >= 16 ? kNumericTypes : kFloatTypes; }

// The shape the slope is read as, so that it broadcasts to `x` giving `x`.
Shape effective_slope_shape(const NodeInfo& node, const Shape& x, const Shape& slope) {
  const bool unidirectional = slope.size() <= x.size() && [&] {
    for (size_t i = 0; i < slope.size(); ++i) {
      const int64_t dim = slope[slope.size() - 1 - i];
      if (dim != 1 && dim != x[x.size() - 1 - i]) return false;
    }
    return true;
  }();
  if (unidirectional) return slope;
  if (slope.size() == 1 && x.size() >= 2 && slope[0] == x[1]) {
    Shape per_channel(x.size() - 1, 1);
    per_channel[0] = slope[0];
    return per_channel;
  }
  node.fail(ErrorCode::kInvalidArgument, "slope shape {} does not broadcast to input shape {}",
            shape_to_string(slope), shape_to_string(x));
}

void check_prelu_types(const NodeInfo& node, DataType x, DataType slope) {
  check_input_type(node, 0, x, prelu_types(node.opset()));
  if (slope != x) {
    node.fail(ErrorCode::kInvalidModel, "slope has type {}, expected {} like input 0",
              dtype_name(slope), dtype_name(x));
  }
}

void infer_prelu(InferContext& ctx) {
  const ValueFacts& x = ctx.input(0);
  check_prelu_types(ctx.node(), x.dtype, ctx.input(1).dtype);
  effective_slope_shape(ctx.node(), x.shape, ctx.input(1).shape);
  ctx.set_output(0, x.dtype, x.shape);
}

void compute_prelu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& slope = ctx.input(1);
  check_prelu_types(ctx.node(), x.dtype(), slope.dtype());
  const Shape slope_shape = effective_slope_shape(ctx.node(), x.shape(), slope.shape());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  visit_numeric_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const T* in = x.data<T>();
      const T* alpha = slope.data<T>();
      T* out = y.data<T>();
      for_each_broadcast<2>(x.shape(), {x.shape(), slope_shape}, [&](int64_t i, const auto& at) {
        const auto value = widen(in[at[0]]);
        out[i] = value < 0 ? narrow<T>(widen(alpha[at[1]]) * value) : in[at[0]];
      });
    }
  });
}

}  // namespace

OpKernel prelu_kernel() { return OpKernel{"PRelu", 7, 18, infer_prelu, compute_prelu}; }

}  // namespace inferlab::kernels::reference
