// LayerNormalization (opset 17): X is normalized over the trailing dims from
// `axis`, then scaled and shifted by Scale and B (broadcast over those dims).
// Optional outputs Mean and InvStdDev keep the leading dims and put 1 in the
// normalized ones; their type follows stash_type.
#include <cmath>
#include <vector>

#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

struct LayerNormProblem {
  int64_t outer = 0;
  int64_t inner = 0;
  Shape normalized;  // X.shape[axis:]
  Shape stats_shape;
  DataType stats_dtype = DataType::kFloat32;
};

// Checks that `param` right-aligns onto the normalized dims (size equal or 1).
void check_param(const NodeInfo& node, const char* name, const Shape& param,
                 const Shape& normalized) {
  size_t skip = 0;
  while (param.size() - skip > normalized.size() && param[skip] == 1) ++skip;
  bool ok = param.size() - skip <= normalized.size();
  for (size_t i = skip; ok && i < param.size(); ++i) {
    const int64_t target = normalized[normalized.size() - (param.size() - i)];
    ok = param[i] == target || param[i] == 1;
  }
  if (!ok) {
    node.fail(ErrorCode::kInvalidArgument, "{} {} does not broadcast to the normalized dims {}",
              name, shape_to_string(param), shape_to_string(normalized));
  }
}

LayerNormProblem layer_norm_problem(const NodeInfo& node, const Shape& x, const Shape& scale,
                                    const Shape* bias) {
  if (x.empty()) node.fail(ErrorCode::kInvalidArgument, "input X must not be a scalar");
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis =
      naming_node(node, [&] { return normalize_axis(node.attr_int("axis", -1), rank, "axis"); });
  LayerNormProblem p;
  p.normalized.assign(x.begin() + axis, x.end());
  p.outer = shape_numel(Shape(x.begin(), x.begin() + axis));
  p.inner = shape_numel(p.normalized);
  p.stats_shape.assign(x.begin(), x.begin() + axis);
  p.stats_shape.resize(x.size(), 1);
  const int64_t stash = node.attr_int("stash_type", 1);
  if (stash != 1 && stash != 11) {
    node.fail(ErrorCode::kUnsupported, "stash_type {} is not supported (float or double)", stash);
  }
  p.stats_dtype = stash == 11 ? DataType::kFloat64 : DataType::kFloat32;
  check_param(node, "Scale", scale, p.normalized);
  if (bias != nullptr) check_param(node, "B", *bias, p.normalized);
  return p;
}

// Expands a right-aligned, broadcastable parameter into one value per normalized element.
void expand_param(const Tensor& param, const Shape& normalized, double* out) {
  const int64_t count = shape_numel(normalized);
  const Shape& shape = param.shape();
  const Shape strides = shape_strides(shape);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    int64_t source = 0;
    for (size_t d = normalized.size(); d-- > 0;) {
      const int64_t coord = rest % normalized[d];
      rest /= normalized[d];
      const size_t from_end = normalized.size() - d;
      if (from_end <= shape.size()) {
        const size_t pd = shape.size() - from_end;
        if (shape[pd] != 1) source += coord * strides[pd];
      }
    }
    out[flat] = param.element_as_double(source);
  }
}

template <typename T, typename S>
void layer_normalize(const LayerNormProblem& p, const T* x, const double* scale, const double* bias,
                     double epsilon, T* y, S* mean_out, S* inv_std_out) {
  for (int64_t o = 0; o < p.outer; ++o) {
    const T* src = x + o * p.inner;
    T* dst = y + o * p.inner;
    double sum = 0;
    for (int64_t i = 0; i < p.inner; ++i) sum += src[i];
    const double mean = p.inner > 0 ? sum / static_cast<double>(p.inner) : 0.0;
    double squares = 0;
    for (int64_t i = 0; i < p.inner; ++i) squares += (src[i] - mean) * (src[i] - mean);
    const double var = p.inner > 0 ? squares / static_cast<double>(p.inner) : 0.0;
    const double inv_std = 1.0 / std::sqrt(var + epsilon);
    for (int64_t i = 0; i < p.inner; ++i) {
      dst[i] =
          static_cast<T>((src[i] - mean) * inv_std * scale[i] + (bias == nullptr ? 0 : bias[i]));
    }
    if (mean_out != nullptr) mean_out[o] = static_cast<S>(mean);
    if (inv_std_out != nullptr) inv_std_out[o] = static_cast<S>(inv_std);
  }
}

void infer_layer_normalization(InferContext& ctx) {
  const LayerNormProblem p = layer_norm_problem(ctx.node(), ctx.input(0).shape, ctx.input(1).shape,
                                                ctx.has_input(2) ? &ctx.input(2).shape : nullptr);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
  ctx.set_output(1, p.stats_dtype, p.stats_shape);
  ctx.set_output(2, p.stats_dtype, p.stats_shape);
}

void compute_layer_normalization(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const LayerNormProblem p = layer_norm_problem(ctx.node(), x.shape(), ctx.input(1).shape(),
                                                bias ? &bias->shape() : nullptr);
  // Scale and bias expanded to one value per normalized element, in scratch.
  const auto count = static_cast<size_t>(shape_numel(p.normalized));
  double* scale = ctx.scratch<double>(2 * count);
  double* shift = bias ? scale + count : nullptr;
  expand_param(ctx.input(1), p.normalized, scale);
  if (bias) expand_param(*bias, p.normalized, shift);
  const double epsilon = ctx.node().attr_float("epsilon", 1e-5f);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  Tensor* mean = ctx.num_outputs() > 1 ? &ctx.output(1, p.stats_dtype, p.stats_shape) : nullptr;
  Tensor* inv_std = ctx.num_outputs() > 2 ? &ctx.output(2, p.stats_dtype, p.stats_shape) : nullptr;
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    visit_float_dtype(p.stats_dtype, ctx.node().op_type(), [&](auto stats_tag) {
      using S = typename decltype(stats_tag)::type;
      layer_normalize<T, S>(p, x.data<T>(), scale, shift, epsilon, y.data<T>(),
                            mean ? mean->data<S>() : nullptr,
                            inv_std ? inv_std->data<S>() : nullptr);
    });
  });
}

}  // namespace

OpKernel layer_normalization_kernel() {
  return OpKernel{"LayerNormalization", 17, 18, infer_layer_normalization,
                  compute_layer_normalization};
}

}  // namespace inferlab::kernels::reference
