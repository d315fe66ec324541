// com.microsoft::FastGelu (ONNX Runtime contrib, opset 1): the tanh
// approximation of GELU, Y = 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3)))
// with x = X (+ bias, 1-D over the last dimension, when given).
#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::fused {
namespace {

void check_inputs(const NodeInfo& node, DataType x_dtype, const Shape& x, const Shape* bias,
                  DataType bias_dtype) {
  require_float32(node, x_dtype, "input X");
  if (bias == nullptr) return;
  require_float32(node, bias_dtype, "input bias");
  if (x.empty()) node.fail(ErrorCode::kInvalidArgument, "input X must not be a scalar with a bias");
  require_channel_vector(node, *bias, x.back(), "input bias");
}

void infer_fast_gelu(InferContext& ctx) {
  const bool has_bias = ctx.has_input(1);
  check_inputs(ctx.node(), ctx.input(0).dtype, ctx.input(0).shape,
               has_bias ? &ctx.input(1).shape : nullptr,
               has_bias ? ctx.input(1).dtype : DataType::kUndefined);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_fast_gelu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor* bias = ctx.has_input(1) ? &ctx.input(1) : nullptr;
  check_inputs(ctx.node(), x.dtype(), x.shape(), bias ? &bias->shape() : nullptr,
               bias ? bias->dtype() : DataType::kUndefined);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  if (bias == nullptr) {
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = gelu_tanh(in[i]);
    return;
  }
  const float* b = bias->data<float>();
  const int64_t channels = x.shape().back();
  const int64_t rows = channels > 0 ? x.numel() / channels : 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < channels; ++c) {
      out[r * channels + c] = gelu_tanh(in[r * channels + c] + b[c]);
    }
  }
}

}  // namespace

OpKernel fast_gelu_kernel() {
  return OpKernel{"FastGelu", 1, 1, infer_fast_gelu, compute_fast_gelu, "com.microsoft"};
}

}  // namespace inferlab::kernels::fused
