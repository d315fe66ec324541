// Clip: y = min(max(x, lo), hi). Before opset 11 the bounds are float
// attributes; from 11 they are optional scalar inputs of x's type; from 12
// integer types are allowed. lo > hi gives hi everywhere, as ONNX specifies.
#include <algorithm>
#include <limits>

#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

TypeSet clip_types(int64_t opset) { return opset >= 12 ? kNumericTypes : kFloatTypes; }

void check_clip_inputs(const NodeInfo& node, DataType x_dtype,
                       const std::vector<DataType>& bounds) {
  check_input_type(node, 0, x_dtype, clip_types(node.opset()));
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (bounds[i] != DataType::kUndefined && bounds[i] != x_dtype) {
      node.fail(ErrorCode::kInvalidModel, "input {} has type {}, expected {} like input 0", i + 1,
                dtype_name(bounds[i]), dtype_name(x_dtype));
    }
  }
}

// Bound `index` (1 = min, 2 = max) as the computing type, or `fallback` when omitted.
template <typename T>
arith_t<T> read_bound(const KernelContext& ctx, size_t index, arith_t<T> fallback) {
  const NodeInfo& node = ctx.node();
  if (node.opset() < 11) {
    const char* name = index == 1 ? "min" : "max";
    return node.has_attr(name) ? static_cast<arith_t<T>>(node.attr_float(name, 0.0f)) : fallback;
  }
  if (!ctx.has_input(index)) return fallback;
  const Tensor& bound = ctx.input(index);
  if (bound.numel() != 1) {
    node.fail(ErrorCode::kInvalidArgument, "input {} must be a scalar, got shape {}", index,
              shape_to_string(bound.shape()));
  }
  return widen(bound.data<T>()[0]);
}

void infer_clip(InferContext& ctx) {
  std::vector<DataType> bounds;
  for (size_t i = 1; i < 3; ++i) {
    bounds.push_back(ctx.has_input(i) ? ctx.input(i).dtype : DataType::kUndefined);
  }
  check_clip_inputs(ctx.node(), ctx.input(0).dtype, bounds);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_clip(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  std::vector<DataType> bounds;
  for (size_t i = 1; i < 3; ++i) {
    bounds.push_back(ctx.has_input(i) ? ctx.input(i).dtype() : DataType::kUndefined);
  }
  check_clip_inputs(ctx.node(), x.dtype(), bounds);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  visit_numeric_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = arith_t<T>;
    if constexpr (!std::is_same_v<T, bool>) {
      const C lo = read_bound<T>(ctx, 1, std::numeric_limits<C>::lowest());
      const C hi = read_bound<T>(ctx, 2, std::numeric_limits<C>::max());
      const T* in = x.data<T>();
      T* out = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        out[i] = narrow<T>(std::min(std::max(widen(in[i]), lo), hi));
      }
    }
  });
}

}  // namespace

OpKernel clip_kernel() { return OpKernel{"Clip", 7, 18, infer_clip, compute_clip}; }

}  // namespace inferlab::kernels::reference
