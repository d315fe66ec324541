// ai.inferlab FusedMatMul: Y = act(MatMul(A, B) + bias), the reference
// MatMul kernel (numpy broadcasting of batch dims) followed by the 1-D bias
// over the product's last dim and the shared activation, in place.
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/fused/base_kernel.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::fused {
namespace {

constexpr size_t kBias = 2;

void check_bias(const NodeInfo& node, DataType y_dtype, const Shape& y_shape, DataType bias_dtype,
                const Shape& bias_shape) {
  const int64_t columns = y_shape.empty() ? 1 : y_shape.back();
  if (bias_dtype != y_dtype || bias_shape.size() != 1 || bias_shape[0] != columns) {
    node.fail(ErrorCode::kInvalidArgument,
              "bias must be 1-D {}[{}] (the product's last dim; product {}), got {}{}",
              dtype_name(y_dtype), columns, shape_to_string(y_shape), dtype_name(bias_dtype),
              shape_to_string(bias_shape));
  }
}

template <typename T>
void add_bias_rows(T* y, const T* bias, int64_t rows, int64_t columns) {
  for (int64_t r = 0; r < rows; ++r, y += columns) {
    for (int64_t c = 0; c < columns; ++c) y[c] += bias[c];
  }
}

template <typename T>
void finish(const Activation& activation, const Tensor* bias, Tensor& y) {
  const int64_t columns = y.shape().empty() ? 1 : y.shape().back();
  T* data = y.data<T>();
  if (bias != nullptr && columns > 0) {
    add_bias_rows(data, bias->data<T>(), y.numel() / columns, columns);
  }
  apply_activation(activation, data, y.numel());
}

void infer_fused_matmul(const OpKernel& matmul, InferContext& ctx) {
  parse_activation(ctx.node());
  const auto [dtype, shape] = infer_base(matmul, ctx, 2);
  require_float(ctx.node(), dtype);
  if (ctx.has_input(kBias)) {
    const ValueFacts& bias = ctx.input(kBias);
    check_bias(ctx.node(), dtype, shape, bias.dtype, bias.shape);
  }
  ctx.set_output(0, dtype, shape);
}

void compute_fused_matmul(const OpKernel& matmul, KernelContext& ctx) {
  const Activation activation = parse_activation(ctx.node());
  require_float(ctx.node(), ctx.input(0).dtype());
  const Tensor* bias = ctx.has_input(kBias) ? &ctx.input(kBias) : nullptr;
  Tensor& y = compute_base(matmul, ctx, 2);
  if (bias != nullptr) check_bias(ctx.node(), y.dtype(), y.shape(), bias->dtype(), bias->shape());
  if (y.dtype() == DataType::kFloat64) {
    finish<double>(activation, bias, y);
  } else {
    finish<float>(activation, bias, y);
  }
}

}  // namespace

OpKernel fused_matmul_kernel() {
  const OpKernel matmul = reference::matmul_kernel();
  return OpKernel{"FusedMatMul",
                  1,
                  1,
                  [matmul](InferContext& ctx) { infer_fused_matmul(matmul, ctx); },
                  [matmul](KernelContext& ctx) { compute_fused_matmul(matmul, ctx); },
                  "ai.inferlab"};
}

}  // namespace inferlab::kernels::fused
