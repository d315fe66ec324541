// GlobalAveragePool and GlobalMaxPool: one value per (batch, channel) over all
// spatial dims; the output keeps the rank with every spatial dim 1.
#include <algorithm>
#include <limits>

#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

enum class GlobalPoolKind { kAverage, kMax };

Shape global_pool_shape(const NodeInfo& node, const Shape& x) {
  if (x.size() < 2) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 2 (N x C x ...), got {}",
              shape_to_string(x));
  }
  Shape out(x.size(), 1);
  out[0] = x[0];
  out[1] = x[1];
  return out;
}

template <typename T>
void global_pool(GlobalPoolKind kind, const T* x, int64_t planes, int64_t plane_size, T* y) {
  for (int64_t p = 0; p < planes; ++p) {
    const T* src = x + p * plane_size;
    if (kind == GlobalPoolKind::kMax) {
      T best = plane_size > 0 ? src[0] : T(0);
      for (int64_t i = 1; i < plane_size; ++i) best = std::max(best, src[i]);
      y[p] = best;
    } else {
      double sum = 0;
      for (int64_t i = 0; i < plane_size; ++i) sum += src[i];
      y[p] = plane_size > 0 ? static_cast<T>(sum / static_cast<double>(plane_size)) : T(0);
    }
  }
}

InferFunction infer_global_pool() {
  return [](InferContext& ctx) {
    ctx.set_output(0, ctx.input(0).dtype, global_pool_shape(ctx.node(), ctx.input(0).shape));
  };
}

ComputeFunction compute_global_pool(GlobalPoolKind kind) {
  return [kind](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Shape shape = global_pool_shape(ctx.node(), x.shape());
    Tensor& y = ctx.output(0, x.dtype(), shape);
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t plane_size = planes > 0 ? x.numel() / planes : 0;
    visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      global_pool<T>(kind, x.data<T>(), planes, plane_size, y.data<T>());
    });
  };
}

}  // namespace

OpKernel global_average_pool_kernel() {
  return OpKernel{"GlobalAveragePool", 7, 18, infer_global_pool(),
                  compute_global_pool(GlobalPoolKind::kAverage)};
}

OpKernel global_max_pool_kernel() {
  return OpKernel{"GlobalMaxPool", 7, 18, infer_global_pool(),
                  compute_global_pool(GlobalPoolKind::kMax)};
}

}  // namespace inferlab::kernels::reference
