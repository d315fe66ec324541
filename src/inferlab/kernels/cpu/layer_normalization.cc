// Fast float32 LayerNormalization (ONNX opset 17 and ai.inferlab), and
// com.microsoft::SkipLayerNormalization, on the table's layer_norm_f32. The
// fast path takes the shapes models have: Scale/B/gamma/beta covering the
// normalized dims exactly, and only output 0 (no Mean/InvStdDev). Anything
// else, including every invalid input, runs the reference kernel.
#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

bool is_f32(const Tensor& t) { return t.dtype() == DataType::kFloat32; }

// True when `param`, right-aligned, has exactly the normalized dims.
bool covers(const Shape& param, const Shape& x, size_t axis) {
  const int64_t inner = shape_numel(Shape(x.begin() + static_cast<std::ptrdiff_t>(axis), x.end()));
  if (shape_numel(param) != inner || param.size() > x.size()) return false;
  for (size_t i = 0; i < param.size(); ++i) {
    if (param[param.size() - 1 - i] != x[x.size() - 1 - i]) return false;
  }
  return true;
}

bool run_layer_norm(KernelContext& ctx, const KernelTable& table) {
  const NodeInfo& node = ctx.node();
  const Tensor& x = ctx.input(0);
  const Tensor& scale = ctx.input(1);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  if (ctx.num_outputs() != 1 || !is_f32(x) || !is_f32(scale) || (bias && !is_f32(*bias))) {
    return false;
  }
  const auto rank = static_cast<int64_t>(x.shape().size());
  int64_t axis = node.attr_int("axis", -1);
  if (axis < 0) axis += rank;
  const int64_t stash = node.attr_int("stash_type", 1);
  if (rank == 0 || axis < 0 || axis >= rank || (stash != 1 && stash != 11)) return false;
  const auto at = static_cast<size_t>(axis);
  if (!covers(scale.shape(), x.shape(), at) || (bias && !covers(bias->shape(), x.shape(), at))) {
    return false;
  }
  const int64_t inner = shape_numel(Shape(x.shape().begin() + axis, x.shape().end()));
  const double epsilon = node.attr_float("epsilon", 1e-5f);
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const int64_t rows = inner > 0 ? x.numel() / inner : 0;
  const float* in = x.data<float>();
  float* out = y.data<float>();
  parallel_ranges(rows, inner, 1, [&](int64_t begin, int64_t end) {
    table.layer_norm_f32(in + begin * inner, nullptr, 1, nullptr, scale.data<float>(),
                         bias ? bias->data<float>() : nullptr, epsilon, out + begin * inner,
                         end - begin, inner);
  });
  return true;
}

bool is_channel_vector(const Tensor* t, int64_t hidden) {
  return t == nullptr || (is_f32(*t) && t->shape().size() == 1 && t->shape()[0] == hidden);
}

// skip: input's shape, or its trailing [S, H], or [1, S, H] for a 3-D input.
bool skip_fits(const Shape& input, const Shape& skip) {
  if (skip.size() < 2 || skip.size() > input.size()) return false;
  for (size_t i = 0; i < skip.size(); ++i) {
    const int64_t want = input[input.size() - (skip.size() - i)];
    if (skip[i] != want && !(i == 0 && skip.size() == 3 && skip[i] == 1)) return false;
  }
  return true;
}

bool run_skip_layer_norm(KernelContext& ctx, const KernelTable& table) {
  const Tensor& input = ctx.input(0);
  const Tensor& skip = ctx.input(1);
  const Tensor& gamma = ctx.input(2);
  const Tensor* beta = ctx.has_input(3) ? &ctx.input(3) : nullptr;
  const Tensor* bias = ctx.has_input(4) ? &ctx.input(4) : nullptr;
  const Shape& shape = input.shape();
  if (ctx.num_outputs() != 1 || !is_f32(input) || !is_f32(skip) ||
      (shape.size() != 2 && shape.size() != 3) || !skip_fits(shape, skip.shape())) {
    return false;
  }
  const int64_t hidden = shape.back();
  if (!is_channel_vector(&gamma, hidden) || !is_channel_vector(beta, hidden) ||
      !is_channel_vector(bias, hidden)) {
    return false;
  }
  const double epsilon = ctx.node().attr_float("epsilon", 1e-12f);
  Tensor& y = ctx.output(0, input.dtype(), shape);
  const int64_t rows = hidden > 0 ? input.numel() / hidden : 0;
  const int64_t skip_rows = hidden > 0 ? skip.numel() / hidden : 1;
  const float* in = input.data<float>();
  const float* skip_data = skip.data<float>();
  const float* bias_data = bias ? bias->data<float>() : nullptr;
  const float* beta_data = beta ? beta->data<float>() : nullptr;
  float* out = y.data<float>();
  // Row r adds skip row r % skip_rows: a range of rows keeps that when the
  // skip has one row or one per row; other repeats run on one thread.
  if (skip_rows != 1 && skip_rows != rows) {
    table.layer_norm_f32(in, skip_data, skip_rows, bias_data, gamma.data<float>(), beta_data,
                         epsilon, out, rows, hidden);
    return true;
  }
  parallel_ranges(rows, hidden, 1, [&](int64_t begin, int64_t end) {
    const int64_t at = begin * hidden;
    const bool per_row = skip_rows != 1;
    table.layer_norm_f32(in + at, skip_data + (per_row ? at : 0), per_row ? end - begin : 1,
                         bias_data, gamma.data<float>(), beta_data, epsilon, out + at, end - begin,
                         hidden);
  });
  return true;
}

}  // namespace

void add_layer_normalization_kernels(OpRegistry& registry, const KernelTable& table) {
  auto layer_norm = [&table](KernelContext& ctx) { return run_layer_norm(ctx, table); };
  replace_compute(registry, "", "LayerNormalization", layer_norm);
  replace_compute(registry, "ai.inferlab", "LayerNormalization", layer_norm);
  replace_compute(registry, "com.microsoft", "SkipLayerNormalization",
                  [&table](KernelContext& ctx) { return run_skip_layer_norm(ctx, table); });
}

}  // namespace inferlab::kernels::cpu
