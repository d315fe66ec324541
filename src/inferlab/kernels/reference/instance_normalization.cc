// InstanceNormalization: every (batch, channel) plane normalized by its own
// mean and variance, then scaled and shifted per channel.
#include <cmath>

#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

void check_shapes(const NodeInfo& node, const Shape& x, const Shape& scale, const Shape& bias) {
  if (x.size() < 3) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 3 (N x C x D1 ...), got {}",
              shape_to_string(x));
  }
  for (const Shape* param : {&scale, &bias}) {
    if (param->size() != 1 || (*param)[0] != x[1]) {
      node.fail(ErrorCode::kInvalidArgument,
                "scale and B must have shape [{}] (X's channels), got {}", x[1],
                shape_to_string(*param));
    }
  }
}

template <typename T>
void instance_normalize(const T* x, const T* scale, const T* bias, int64_t batch, int64_t channels,
                        int64_t inner, double epsilon, T* y) {
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      const T* src = x + (n * channels + c) * inner;
      T* dst = y + (n * channels + c) * inner;
      double sum = 0;
      for (int64_t i = 0; i < inner; ++i) sum += src[i];
      const double mean = inner > 0 ? sum / static_cast<double>(inner) : 0.0;
      double squares = 0;
      for (int64_t i = 0; i < inner; ++i) squares += (src[i] - mean) * (src[i] - mean);
      const double var = inner > 0 ? squares / static_cast<double>(inner) : 0.0;
      const double factor = scale[c] / std::sqrt(var + epsilon);
      for (int64_t i = 0; i < inner; ++i) {
        dst[i] = static_cast<T>((src[i] - mean) * factor + bias[c]);
      }
    }
  }
}

void infer_instance_normalization(InferContext& ctx) {
  check_shapes(ctx.node(), ctx.input(0).shape, ctx.input(1).shape, ctx.input(2).shape);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_instance_normalization(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor& bias = ctx.input(2);
  check_shapes(ctx.node(), x.shape(), scale.shape(), bias.shape());
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const int64_t batch = x.dim(0);
  const int64_t channels = x.dim(1);
  const int64_t inner = batch * channels > 0 ? x.numel() / (batch * channels) : 0;
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    instance_normalize<T>(x.data<T>(), scale.data<T>(), bias.data<T>(), batch, channels, inner,
                          ctx.node().attr_float("epsilon", 1e-5f), y.data<T>());
  });
}

}  // namespace

OpKernel instance_normalization_kernel() {
  return OpKernel{"InstanceNormalization", 7, 18, infer_instance_normalization,
                  compute_instance_normalization};
}

}  // namespace inferlab::kernels::reference
