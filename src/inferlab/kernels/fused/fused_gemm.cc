// ai.inferlab FusedGemm: Y = act(alpha * op(A) * op(B) + beta * C), the
// reference Gemm kernel followed by the shared activation in place.
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/fused/base_kernel.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::fused {
namespace {

void infer_fused_gemm(const OpKernel& gemm, InferContext& ctx) {
  parse_activation(ctx.node());
  const auto [dtype, shape] = infer_base(gemm, ctx, 3);
  require_float(ctx.node(), dtype);
  ctx.set_output(0, dtype, shape);
}

void compute_fused_gemm(const OpKernel& gemm, KernelContext& ctx) {
  const Activation activation = parse_activation(ctx.node());
  require_float(ctx.node(), ctx.input(0).dtype());
  Tensor& y = compute_base(gemm, ctx, 3);
  if (y.dtype() == DataType::kFloat64) {
    apply_activation(activation, y.data<double>(), y.numel());
  } else {
    apply_activation(activation, y.data<float>(), y.numel());
  }
}

}  // namespace

OpKernel fused_gemm_kernel() {
  const OpKernel gemm = reference::gemm_kernel();
  return OpKernel{"FusedGemm",
                  1,
                  1,
                  [gemm](InferContext& ctx) { infer_fused_gemm(gemm, ctx); },
                  [gemm](KernelContext& ctx) { compute_fused_gemm(gemm, ctx); },
                  "ai.inferlab"};
}

}  // namespace inferlab::kernels::fused
