// ai.inferlab::LayerNormalization (opset 1): ONNX-17 LayerNormalization for
// models whose default opset is older (the optimizer's layernorm_fusion
// emits it there). X is normalized over the dims from `axis` (default -1);
// Scale and B broadcast onto those dims; optional outputs Mean and
// InvStdDev keep the leading dims with 1 in the normalized ones. FP32 data;
// statistics are computed in double (stash_type 1 or 11).
#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::fused {
namespace {

struct Problem {
  int64_t outer = 0;
  int64_t inner = 0;
  Shape normalized;
  Shape stats_shape;
  DataType stats_dtype = DataType::kFloat32;
};

Problem make_problem(const NodeInfo& node, const Shape& x) {
  if (x.empty()) node.fail(ErrorCode::kInvalidArgument, "input X must not be a scalar");
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = normalize_axis(node.attr_int("axis", -1), rank, node.describe() + " axis");
  Problem p;
  p.normalized.assign(x.begin() + axis, x.end());
  p.outer = shape_numel(Shape(x.begin(), x.begin() + axis));
  p.inner = shape_numel(p.normalized);
  p.stats_shape.assign(x.begin(), x.begin() + axis);
  p.stats_shape.resize(x.size(), 1);
  p.stats_dtype = node.attr_int("stash_type", 1) == 11 ? DataType::kFloat64 : DataType::kFloat32;
  return p;
}

// Writes one value per normalized element from a right-aligned parameter
// (its dims equal to the normalized ones or 1); fails when it does not fit.
void expand_param(const NodeInfo& node, const char* what, const Tensor& param,
                  const Shape& normalized, float* out) {
  require_float32(node, param.dtype(), what);
  const Shape& shape = param.shape();
  size_t skip = 0;
  while (shape.size() - skip > normalized.size() && shape[skip] == 1) ++skip;
  bool ok = shape.size() - skip <= normalized.size();
  for (size_t i = skip; ok && i < shape.size(); ++i) {
    const int64_t target = normalized[normalized.size() - (shape.size() - i)];
    ok = shape[i] == target || shape[i] == 1;
  }
  if (!ok) {
    node.fail(ErrorCode::kInvalidArgument, "{} {} does not broadcast to the normalized dims {}",
              what, shape_to_string(shape), shape_to_string(normalized));
  }
  const float* data = param.data<float>();
  const int64_t count = shape_numel(normalized);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    int64_t source = 0;
    int64_t stride = 1;
    for (size_t d = normalized.size(); d-- > 0;) {
      const int64_t coord = rest % normalized[d];
      rest /= normalized[d];
      const size_t from_end = normalized.size() - d;
      if (from_end > shape.size()) continue;
      const int64_t size = shape[shape.size() - from_end];
      if (size != 1) source += coord * stride;
      stride *= size;
    }
    out[flat] = data[source];
  }
}

void infer_layer_normalization(InferContext& ctx) {
  require_float32(ctx.node(), ctx.input(0).dtype, "input X");
  reference::layer_normalization_kernel().infer(ctx);
}

template <typename S>
void write_stats(Tensor* tensor, int64_t row, const RowStats& stats, bool mean) {
  if (tensor != nullptr) tensor->data<S>()[row] = static_cast<S>(mean ? stats.mean : stats.inv_std);
}

void compute_layer_normalization(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& x = ctx.input(0);
  require_float32(node, x.dtype(), "input X");
  const Problem p = make_problem(node, x.shape());
  float* scale = ctx.scratch<float>(static_cast<size_t>(2 * p.inner));
  float* shift = scale + p.inner;
  expand_param(node, "Scale", ctx.input(1), p.normalized, scale);
  if (ctx.has_input(2)) expand_param(node, "B", ctx.input(2), p.normalized, shift);
  const double epsilon = node.attr_float("epsilon", 1e-5f);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  Tensor* mean = ctx.num_outputs() > 1 ? &ctx.output(1, p.stats_dtype, p.stats_shape) : nullptr;
  Tensor* inv_std = ctx.num_outputs() > 2 ? &ctx.output(2, p.stats_dtype, p.stats_shape) : nullptr;
  for (int64_t o = 0; o < p.outer; ++o) {
    const RowStats stats =
        normalize_row(x.data<float>() + o * p.inner, p.inner, scale,
                      ctx.has_input(2) ? shift : nullptr, epsilon, y.data<float>() + o * p.inner);
    if (p.stats_dtype == DataType::kFloat64) {
      write_stats<double>(mean, o, stats, true);
      write_stats<double>(inv_std, o, stats, false);
    } else {
      write_stats<float>(mean, o, stats, true);
      write_stats<float>(inv_std, o, stats, false);
    }
  }
}

}  // namespace

OpKernel layer_normalization_kernel() {
  return OpKernel{
      "LayerNormalization", 1, 1, infer_layer_normalization, compute_layer_normalization,
      "ai.inferlab"};
}

}  // namespace inferlab::kernels::fused
