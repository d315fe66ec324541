// com.microsoft::SkipLayerNormalization (ONNX Runtime contrib, opset 1):
// s = input + skip (+ bias); output = LayerNorm(s over the last axis) * gamma
// (+ beta). input is 2-D or 3-D; skip has input's shape or its trailing dims
// ([S, H] or [1, S, H] for a 3-D input); gamma, beta and bias are 1-D [H].
// epsilon defaults to 1e-12 as in ONNX Runtime. Only output 0 is
// implemented (mean, inv_std_var and input_skip_bias_sum are refused).
#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::fused {
namespace {

constexpr float kDefaultEpsilon = 1e-12f;

struct SkipShapes {
  const Shape* input = nullptr;
  const Shape* skip = nullptr;
  const Shape* gamma = nullptr;
  const Shape* beta = nullptr;
  const Shape* bias = nullptr;
};

void check_skip(const NodeInfo& node, const Shape& input, const Shape& skip) {
  bool ok = skip.size() >= 2 && skip.size() <= input.size();
  for (size_t i = 0; ok && i < skip.size(); ++i) {
    const size_t from_end = skip.size() - i;
    const int64_t want = input[input.size() - from_end];
    ok = skip[i] == want || (i == 0 && skip.size() == 3 && skip[i] == 1);
  }
  if (!ok) {
    node.fail(ErrorCode::kInvalidArgument, "skip has shape {}, which does not match input {}",
              shape_to_string(skip), shape_to_string(input));
  }
}

// Returns the hidden size after checking every shape.
int64_t check_shapes(const NodeInfo& node, const SkipShapes& s, size_t num_outputs) {
  if (num_outputs > 1) {
    node.fail(ErrorCode::kUnsupported,
              "only output 0 is supported (mean, inv_std_var and input_skip_bias_sum are not)");
  }
  if (s.input->size() != 2 && s.input->size() != 3) {
    node.fail(ErrorCode::kInvalidArgument, "input has shape {}; expected 2-D or 3-D",
              shape_to_string(*s.input));
  }
  const int64_t hidden = s.input->back();
  check_skip(node, *s.input, *s.skip);
  require_channel_vector(node, *s.gamma, hidden, "gamma");
  if (s.beta != nullptr) require_channel_vector(node, *s.beta, hidden, "beta");
  if (s.bias != nullptr) require_channel_vector(node, *s.bias, hidden, "bias");
  return hidden;
}

void infer_skip_layer_normalization(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i)) require_float32(ctx.node(), ctx.input(i).dtype, "every input");
  }
  SkipShapes s{&ctx.input(0).shape, &ctx.input(1).shape, &ctx.input(2).shape,
               ctx.has_input(3) ? &ctx.input(3).shape : nullptr,
               ctx.has_input(4) ? &ctx.input(4).shape : nullptr};
  check_shapes(ctx.node(), s, ctx.num_outputs());
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

void compute_skip_layer_normalization(KernelContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i)) require_float32(ctx.node(), ctx.input(i).dtype(), "every input");
  }
  const Tensor& input = ctx.input(0);
  const Tensor& skip = ctx.input(1);
  const Tensor* beta = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const Tensor* bias = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  SkipShapes s{&input.shape(), &skip.shape(), &ctx.input(2).shape(),
               beta ? &beta->shape() : nullptr, bias ? &bias->shape() : nullptr};
  const int64_t hidden = check_shapes(ctx.node(), s, ctx.num_outputs());
  const double epsilon = ctx.node().attr_float("epsilon", kDefaultEpsilon);
  Tensor& output = ctx.output(0, input.dtype(), input.shape());
  const int64_t rows = hidden > 0 ? input.numel() / hidden : 0;
  const int64_t skip_rows = hidden > 0 ? skip.numel() / hidden : 1;
  float* sum = ctx.scratch<float>(static_cast<size_t>(hidden));
  const float* in = input.data<float>();
  const float* sk = skip.data<float>();
  const float* bias_data = bias ? bias->data<float>() : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = in + r * hidden;
    const float* b = sk + (r % skip_rows) * hidden;
    for (int64_t c = 0; c < hidden; ++c) sum[c] = a[c] + b[c] + (bias_data ? bias_data[c] : 0.0f);
    normalize_row(sum, hidden, ctx.input(2).data<float>(), beta ? beta->data<float>() : nullptr,
                  epsilon, output.data<float>() + r * hidden);
  }
}

}  // namespace

OpKernel skip_layer_normalization_kernel() {
  return OpKernel{"SkipLayerNormalization",
                  1,
                  1,
                  infer_skip_layer_normalization,
                  compute_skip_layer_normalization,
                  "com.microsoft"};
}

}  // namespace inferlab::kernels::fused
