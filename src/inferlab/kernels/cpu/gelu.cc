// Fast com.microsoft Gelu (exact, erf), FastGelu (tanh form, optional bias)
// and BiasGelu (exact, with bias) in float32 on the table's unary kernels.
// Shape or type errors are left to the reference kernels.
#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

// y = f(x (+ bias over the last axis)); `bias_input` is the bias's input
// index, or 0 for none.
bool run_gelu(KernelContext& ctx, const KernelTable& table, UnaryKind kind, size_t bias_input) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat32) return false;
  const Tensor* bias =
      bias_input > 0 && ctx.has_input(bias_input) ? &ctx.input(bias_input) : nullptr;
  if (bias == nullptr) {
    if (bias_input > 0 && kind == UnaryKind::kGelu) return false;  // BiasGelu needs its bias
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const float* in = x.data<float>();
    float* out = y.data<float>();
    parallel_ranges(x.numel(), 1, 16, [&](int64_t begin, int64_t end) {
      table.unary_f32(kind, {}, in + begin, out + begin, end - begin);
    });
    return true;
  }
  const Shape& shape = x.shape();
  if (bias->dtype() != DataType::kFloat32 || shape.empty() || bias->shape().size() != 1 ||
      bias->shape()[0] != shape.back()) {
    return false;
  }
  const int64_t channels = shape.back();
  Tensor& y = ctx.output(0, x.dtype(), shape);
  const int64_t rows = channels > 0 ? x.numel() / channels : 0;
  const float* in = x.data<float>();
  float* out = y.data<float>();
  parallel_ranges(rows, channels, 1, [&](int64_t begin, int64_t end) {
    table.bias_unary_f32(kind, {}, in + begin * channels, bias->data<float>(),
                         out + begin * channels, end - begin, channels);
  });
  return true;
}

}  // namespace

void add_gelu_kernels(OpRegistry& registry, const KernelTable& table) {
  replace_compute(registry, "com.microsoft", "Gelu", [&table](KernelContext& ctx) {
    return run_gelu(ctx, table, UnaryKind::kGelu, 0);
  });
  replace_compute(registry, "com.microsoft", "FastGelu", [&table](KernelContext& ctx) {
    return run_gelu(ctx, table, UnaryKind::kGeluTanh, 1);
  });
  replace_compute(registry, "com.microsoft", "BiasGelu", [&table](KernelContext& ctx) {
    return run_gelu(ctx, table, UnaryKind::kGelu, 1);
  });
}

}  // namespace inferlab::kernels::cpu
