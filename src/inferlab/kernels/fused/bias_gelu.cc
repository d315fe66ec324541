// com.microsoft::BiasGelu (ONNX Runtime contrib, opset 1): Y = Gelu(A + B), the
// exact (erf) GELU, where B is 1-D with A's last dimension.
#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::fused {
namespace {

int64_t channels_of(const NodeInfo& node, const Shape& a) {
  if (a.empty()) node.fail(ErrorCode::kInvalidArgument, "input A must not be a scalar");
  return a.back();
}

void infer_bias_gelu(InferContext& ctx) {
  require_float32(ctx.node(), ctx.input(0).dtype, "input A");
  require_float32(ctx.node(), ctx.input(1).dtype, "input B");
  require_channel_vector(ctx.node(), ctx.input(1).shape,
                         channels_of(ctx.node(), ctx.input(0).shape), "input B");
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_bias_gelu(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  require_float32(ctx.node(), a.dtype(), "input A");
  require_float32(ctx.node(), b.dtype(), "input B");
  const int64_t channels = channels_of(ctx.node(), a.shape());
  require_channel_vector(ctx.node(), b.shape(), channels, "input B");
  Tensor& y = ctx.output(0, a.dtype(), a.shape());
  const float* in = a.data<float>();
  const float* bias = b.data<float>();
  float* out = y.data<float>();
  const int64_t rows = channels > 0 ? a.numel() / channels : 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      out[r * channels + c] = gelu_exact(in[r * channels + c] + bias[c]);
    }
  }
}

}  // namespace

OpKernel bias_gelu_kernel() {
  return OpKernel{"BiasGelu", 1, 1, infer_bias_gelu, compute_bias_gelu, "com.microsoft"};
}

}  // namespace inferlab::kernels::fused
