// Fast float32 BatchNormalization in inference mode with per-channel
// statistics: each channel's scale / sqrt(var + epsilon) and shift are
// computed once (in double), then every plane is one multiply-add, split
// over the team. Training mode, per-element statistics (opset 7/8's
// spatial = 0), extra outputs and other types go to the reference kernel.
#include <cmath>
#include <vector>

#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

bool is_channel_vector(const KernelContext& ctx, size_t index, int64_t channels) {
  if (!ctx.has_input(index)) return false;
  const Tensor& t = ctx.input(index);
  return t.dtype() == DataType::kFloat32 && t.rank() == 1 && t.dim(0) == channels;
}

bool inference_per_channel(const KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  if (node.opset() >= 14 && node.attr_int("training_mode", 0) != 0) return false;
  if (node.opset() < 9 && node.attr_int("spatial", 1) == 0) return false;
  if (ctx.num_outputs() != 1 || ctx.num_inputs() != 5) return false;
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat32 || x.rank() < 2) return false;
  for (size_t i = 1; i < 5; ++i) {
    if (!is_channel_vector(ctx, i, x.dim(1))) return false;
  }
  return true;
}

bool run_batch_normalization(KernelContext& ctx) {
  if (!inference_per_channel(ctx)) return false;
  const Tensor& x = ctx.input(0);
  if (x.numel() == 0) {
    ctx.output(0, x.dtype(), x.shape());
    return true;
  }
  const int64_t channels = x.dim(1);
  const double epsilon = ctx.node().attr_float("epsilon", 1e-5f);
  const float* scale = ctx.input(1).data<float>();
  const float* bias = ctx.input(2).data<float>();
  const float* mean = ctx.input(3).data<float>();
  const float* var = ctx.input(4).data<float>();
  // Per channel: y = x * multiplier + shift.
  float* multiplier = ctx.scratch<float>(static_cast<size_t>(2 * channels));
  float* shift = multiplier + channels;
  for (int64_t c = 0; c < channels; ++c) {
    const double m =
        static_cast<double>(scale[c]) / std::sqrt(static_cast<double>(var[c]) + epsilon);
    multiplier[c] = static_cast<float>(m);
    shift[c] = static_cast<float>(static_cast<double>(bias[c]) - m * mean[c]);
  }
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const int64_t plane = x.numel() / (x.dim(0) * channels);
  const float* in = x.data<float>();
  float* out = y.data<float>();
  parallel_ranges(x.dim(0) * channels, plane, 1, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      const float a = multiplier[p % channels];
      const float b = shift[p % channels];
      const float* from = in + p * plane;
      float* to = out + p * plane;
      for (int64_t i = 0; i < plane; ++i) to[i] = from[i] * a + b;
    }
  });
  return true;
}

}  // namespace

void add_batch_normalization_kernel(OpRegistry& registry) {
  replace_compute(registry, "", "BatchNormalization", run_batch_normalization);
}

}  // namespace inferlab::kernels::cpu
