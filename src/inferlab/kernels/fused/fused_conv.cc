// ai.inferlab FusedConv: Y = act(Conv(X, W, B) + Z). The convolution is the
// reference Conv kernel's (same attributes, same shape rule); Z, when
// present, has exactly Y's shape (no broadcasting) and is added before the
// activation, as ONNX Runtime's com.microsoft FusedConv does. With
// `channels_last = 1` (set by the layout pass) X, Z and Y are channels-last
// ([N, spatial..., C]; W keeps ONNX's layout): the reference path then runs
// on channels-first copies (kernels/layout/channels_last.h).
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/fused/base_kernel.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::fused {
namespace {

constexpr size_t kResidual = 3;

void check_residual(const NodeInfo& node, DataType y_dtype, const Shape& y_shape, DataType z_dtype,
                    const Shape& z_shape) {
  if (z_dtype != y_dtype || z_shape != y_shape) {
    node.fail(ErrorCode::kInvalidArgument,
              "residual Z must have the convolution output's type and shape {} {}, got {} {}",
              dtype_name(y_dtype), shape_to_string(y_shape), dtype_name(z_dtype),
              shape_to_string(z_shape));
  }
}

void infer_fused_conv(const OpKernel& conv, InferContext& ctx) {
  parse_activation(ctx.node());
  const auto [dtype, shape] = infer_base(conv, ctx, 3);
  require_float(ctx.node(), dtype);
  if (ctx.has_input(kResidual)) {
    const ValueFacts& z = ctx.input(kResidual);
    check_residual(ctx.node(), dtype, shape, z.dtype, z.shape);
  }
  ctx.set_output(0, dtype, shape);
}

void compute_fused_conv(const OpKernel& conv, KernelContext& ctx) {
  const Activation activation = parse_activation(ctx.node());
  require_float(ctx.node(), ctx.input(0).dtype());
  const Tensor* z = ctx.has_input(kResidual) ? &ctx.input(kResidual) : nullptr;
  // A run plan may place the output over Z, whose buffer dies here (oneDNN
  // adds the convolution to it in place); this kernel writes the convolution
  // first, so it keeps Z aside then.
  Tensor z_aside;
  if (z != nullptr && z->has_data() && ctx.written_output(0).raw_data() == z->raw_data()) {
    z_aside = z->clone();
    z = &z_aside;
  }
  Tensor& y = compute_base(conv, ctx, 3);
  if (z != nullptr) {
    check_residual(ctx.node(), y.dtype(), y.shape(), z->dtype(), z->shape());
    add_in_place(y.dtype(), y.raw_data(), z->raw_data(), y.numel());
  }
  if (y.dtype() == DataType::kFloat64) {
    apply_activation(activation, y.data<double>(), y.numel());
  } else {
    apply_activation(activation, y.data<float>(), y.numel());
  }
}

}  // namespace

OpKernel fused_conv_kernel() {
  const OpKernel conv = reference::conv_kernel();
  return OpKernel{
      "FusedConv",
      1,
      1,
      [conv](InferContext& ctx) {
        const InferFunction infer = [&conv](InferContext& c) { infer_fused_conv(conv, c); };
        if (!layout::is_channels_last(ctx.node())) return infer(ctx);
        layout::infer_channels_last(infer, ctx, {0, kResidual});
      },
      [conv](KernelContext& ctx) {
        const ComputeFunction compute = [&conv](KernelContext& c) { compute_fused_conv(conv, c); };
        if (!layout::is_channels_last(ctx.node())) return compute(ctx);
        layout::compute_channels_last(compute, ctx, {0, kResidual});
      },
      "ai.inferlab"};
}

void register_conv_fusion_kernels(OpRegistry& registry) {
  registry.add(fused_conv_kernel());
  registry.add(fused_gemm_kernel());
  registry.add(fused_matmul_kernel());
  registry.add(hard_swish_kernel());
}

}  // namespace inferlab::kernels::fused
