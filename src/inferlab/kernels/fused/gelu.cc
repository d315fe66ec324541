// com.microsoft::Gelu (ONNX Runtime contrib, opset 1): Y = 0.5 X (1 + erf(X / sqrt(2))).
#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::fused {
namespace {

void infer_gelu(InferContext& ctx) {
  require_float32(ctx.node(), ctx.input(0).dtype, "input X");
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_gelu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  require_float32(ctx.node(), x.dtype(), "input X");
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = gelu_exact(in[i]);
}

}  // namespace

OpKernel gelu_kernel() { return OpKernel{"Gelu", 1, 1, infer_gelu, compute_gelu, "com.microsoft"}; }

}  // namespace inferlab::kernels::fused
