// LRN: local response normalization across channels,
// y = x / (bias + alpha / size * sum of x^2 over the `size` neighbouring channels)^beta.
#include <algorithm>
#include <cmath>

#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

void check_lrn(const NodeInfo& node, const Shape& x) {
  if (x.size() < 3) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 3 (N x C x D1 ...), got {}",
              shape_to_string(x));
  }
  if (node.attr_int("size") < 1) {
    node.fail(ErrorCode::kInvalidModel, "size {} must be positive", node.attr_int("size"));
  }
}

template <typename T>
void lrn(const NodeInfo& node, const T* x, int64_t batch, int64_t channels, int64_t inner, T* y) {
  const int64_t size = node.attr_int("size");
  const double alpha = node.attr_float("alpha", 1e-4f);
  const double beta = node.attr_float("beta", 0.75f);
  const double bias = node.attr_float("bias", 1.0f);
  const int64_t before = (size - 1) / 2;
  const int64_t after = size - 1 - before;
  for (int64_t n = 0; n < batch; ++n) {
    const T* image = x + n * channels * inner;
    T* out = y + n * channels * inner;
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t lo = std::max<int64_t>(0, c - before);
      const int64_t hi = std::min<int64_t>(channels - 1, c + after);
      for (int64_t i = 0; i < inner; ++i) {
        double square_sum = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          const double v = image[k * inner + i];
          square_sum += v * v;
        }
        const double denominator =
            std::pow(bias + alpha / static_cast<double>(size) * square_sum, beta);
        out[c * inner + i] = static_cast<T>(image[c * inner + i] / denominator);
      }
    }
  }
}

void infer_lrn(InferContext& ctx) {
  check_lrn(ctx.node(), ctx.input(0).shape);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_lrn(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  check_lrn(ctx.node(), x.shape());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const int64_t batch = x.dim(0);
  const int64_t channels = x.dim(1);
  const int64_t inner = batch * channels > 0 ? x.numel() / (batch * channels) : 0;
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    lrn<T>(ctx.node(), x.data<T>(), batch, channels, inner, y.data<T>());
  });
}

}  // namespace

OpKernel lrn_kernel() { return OpKernel{"LRN", 7, 18, infer_lrn, compute_lrn}; }

}  // namespace inferlab::kernels::reference
