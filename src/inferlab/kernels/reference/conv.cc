// Conv (opsets 1..18 forms used by 7..17): N-d convolution with groups,
// dilations, strides, pads and auto_pad, computed per batch and group as
// im2col + the shared blocked GEMM (a 1x1, stride-1, unpadded kernel is a
// GEMM on the input directly).
#include <algorithm>
#include <memory>
#include <vector>

#include "inferlab/kernels/reference/gemm_f32.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::reference {
namespace {

struct ConvProblem {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  WindowGeometry geometry;
  Shape output_shape;
};

ConvProblem conv_problem(const NodeInfo& node, const Shape& x, const Shape& w, const Shape* bias) {
  if (x.size() < 3) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 3 (N x C x D1 ...), got {}",
              shape_to_string(x));
  }
  if (w.size() != x.size()) {
    node.fail(ErrorCode::kInvalidArgument, "weights W {} must have the rank of X {}",
              shape_to_string(w), shape_to_string(x));
  }
  ConvProblem p;
  p.batch = x[0];
  p.in_channels = x[1];
  p.out_channels = w[0];
  p.group = node.attr_int("group", 1);
  if (p.group < 1) node.fail(ErrorCode::kInvalidModel, "group {} must be positive", p.group);
  if (p.in_channels % p.group != 0 || p.out_channels % p.group != 0) {
    node.fail(ErrorCode::kInvalidArgument,
              "group {} does not divide the {} input channels and {} output channels", p.group,
              p.in_channels, p.out_channels);
  }
  if (w[1] * p.group != p.in_channels) {
    node.fail(ErrorCode::kInvalidArgument,
              "X has {} channels but W {} expects {} (W dim 1 x group {})", p.in_channels,
              shape_to_string(w), w[1] * p.group, p.group);
  }
  if (bias != nullptr && (bias->size() != 1 || (*bias)[0] != p.out_channels)) {
    node.fail(ErrorCode::kInvalidArgument, "bias B {} must have shape [{}]", shape_to_string(*bias),
              p.out_channels);
  }
  const Shape spatial(x.begin() + 2, x.end());
  p.geometry = resolve_window(node, spatial, kernel_from_weights(node, w), WindowOptions{});
  p.output_shape = {p.batch, p.out_channels};
  p.output_shape.insert(p.output_shape.end(), p.geometry.output.begin(), p.geometry.output.end());
  return p;
}

bool is_pointwise(const WindowGeometry& g) {
  for (size_t i = 0; i < g.rank(); ++i) {
    if (g.kernel[i] != 1 || g.strides[i] != 1 || g.pads_begin[i] != 0 || g.pads_end[i] != 0) {
      return false;
    }
  }
  return true;
}

// Copies one kernel tap of one channel: for every output position, the input
// element it reads (or 0 in the padding). The last spatial dim is the inner,
// contiguous-output loop.
template <typename T>
void im2col_row(const T* image, const WindowGeometry& g, const Shape& tap, T* row) {
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  const int64_t out_w = g.output[last];
  const int64_t in_w = g.input[last];
  const int64_t s_w = g.strides[last];
  const int64_t offset_w = tap[last] * g.dilations[last] - g.pads_begin[last];
  // Output columns whose input column lies inside [0, in_w).
  int64_t lo = 0;
  while (lo < out_w && lo * s_w + offset_w < 0) ++lo;
  int64_t hi = out_w;
  while (hi > lo && (hi - 1) * s_w + offset_w >= in_w) --hi;
  int64_t outer_count = 1;
  for (size_t i = 0; i < last; ++i) outer_count *= g.output[i];
  Shape outer(last, 0);
  for (int64_t o = 0; o < outer_count; ++o, row += out_w) {
    int64_t base = 0;
    bool inside = true;
    for (size_t i = 0; i < last; ++i) {
      const int64_t coord = outer[i] * g.strides[i] + tap[i] * g.dilations[i] - g.pads_begin[i];
      inside = inside && coord >= 0 && coord < g.input[i];
      base = base * g.input[i] + coord;
    }
    for (size_t i = last; i-- > 0;) {  // advance the odometer over outer dims
      if (++outer[i] < g.output[i]) break;
      outer[i] = 0;
    }
    if (!inside) {
      std::fill(row, row + out_w, T(0));
      continue;
    }
    const T* src = image + base * in_w + offset_w;
    std::fill(row, row + lo, T(0));
    if (s_w == 1) {
      std::copy(src + lo, src + hi, row + lo);
    } else {
      for (int64_t ox = lo; ox < hi; ++ox) row[ox] = src[ox * s_w];
    }
    std::fill(row + hi, row + out_w, T(0));
  }
}

// col[(c * taps + t), p] for `channels` channels of one image.
template <typename T>
void im2col(const T* image, int64_t channels, const WindowGeometry& g, T* col) {
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  const int64_t taps = shape_numel(g.kernel);
  Shape tap(g.rank(), 0);
  for (int64_t c = 0; c < channels; ++c) {
    std::fill(tap.begin(), tap.end(), 0);
    for (int64_t t = 0; t < taps; ++t) {
      im2col_row(image + c * in_size, g, tap, col + (c * taps + t) * out_size);
      for (size_t i = g.rank(); i-- > 0;) {
        if (++tap[i] < g.kernel[i]) break;
        tap[i] = 0;
      }
    }
  }
}

// out[m x size] = weights[m x depth] * rows[depth x size]. Few output
// channels per group (depthwise convolutions) would waste most of the GEMM's
// register tile, so those accumulate whole rows instead.
template <typename T>
void multiply_weights(const T* weights, int64_t m, int64_t depth, const T* rows, int64_t size,
                      T* out, T* workspace) {
  if (m >= 4) {
    gemm_blocked(GemmShape{m, size, depth}, false, false, T(1), weights, depth, rows, size, T(0),
                 out, size, workspace);
    return;
  }
  for (int64_t i = 0; i < m; ++i) {
    T* dst = out + i * size;
    std::fill(dst, dst + size, T(0));
    for (int64_t r = 0; r < depth; ++r) {
      const T weight = weights[i * depth + r];
      const T* src = rows + r * size;
      for (int64_t j = 0; j < size; ++j) dst[j] += weight * src[j];
    }
  }
}

// Working memory of run_conv, in elements: the im2col matrix, then the GEMM's panels.
int64_t conv_scratch_elements(const ConvProblem& p, int64_t* col_size) {
  const WindowGeometry& g = p.geometry;
  const int64_t depth = p.in_channels / p.group * shape_numel(g.kernel);
  const int64_t out_size = shape_numel(g.output);
  *col_size = is_pointwise(g) ? 0 : checked_mul(depth, out_size, "im2col");
  const int64_t aligned = (*col_size + 15) / 16 * 16;  // keeps the panels 64-byte aligned
  return aligned + gemm_workspace_elements(GemmShape{p.out_channels / p.group, out_size, depth});
}

template <typename T>
void run_conv(const ConvProblem& p, const T* x, const T* w, const T* bias, T* y, T* scratch) {
  const WindowGeometry& g = p.geometry;
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  const int64_t c_per_group = p.in_channels / p.group;
  const int64_t m_per_group = p.out_channels / p.group;
  const int64_t depth = c_per_group * shape_numel(g.kernel);
  const bool pointwise = is_pointwise(g);
  // Uninitialized on purpose: im2col writes every element.
  int64_t col_size = 0;
  conv_scratch_elements(p, &col_size);
  T* const col = scratch;
  T* const workspace = scratch + (col_size + 15) / 16 * 16;
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t grp = 0; grp < p.group; ++grp) {
      const T* image = x + (n * p.in_channels + grp * c_per_group) * in_size;
      const T* rhs = image;
      if (!pointwise) {
        im2col(image, c_per_group, g, col);
        rhs = col;
      }
      T* out = y + (n * p.out_channels + grp * m_per_group) * out_size;
      multiply_weights(w + grp * m_per_group * depth, m_per_group, depth, rhs, out_size, out,
                       workspace);
    }
    if (bias == nullptr) continue;
    for (int64_t m = 0; m < p.out_channels; ++m) {
      T* out = y + (n * p.out_channels + m) * out_size;
      for (int64_t i = 0; i < out_size; ++i) out[i] += bias[m];
    }
  }
}

void infer_conv(InferContext& ctx) {
  const bool has_bias = ctx.has_input(2);
  const ConvProblem p = conv_problem(ctx.node(), ctx.input(0).shape, ctx.input(1).shape,
                                     has_bias ? &ctx.input(2).shape : nullptr);
  ctx.set_output(0, ctx.input(0).dtype, p.output_shape);
}

void compute_conv(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const ConvProblem p =
      conv_problem(ctx.node(), x.shape(), w.shape(), bias ? &bias->shape() : nullptr);
  for (const Tensor* t : {&w, bias}) {
    if (t != nullptr && t->dtype() != x.dtype()) {
      ctx.node().fail(ErrorCode::kInvalidArgument, "W and B must have X's type {}, got {}",
                      dtype_name(x.dtype()), dtype_name(t->dtype()));
    }
  }
  Tensor& y = ctx.output(0, x.dtype(), p.output_shape);
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    int64_t col_size = 0;
    T* scratch = ctx.scratch<T>(static_cast<size_t>(conv_scratch_elements(p, &col_size)));
    run_conv<T>(p, x.data<T>(), w.data<T>(), bias ? bias->data<T>() : nullptr, y.data<T>(),
                scratch);
  });
}

}  // namespace

OpKernel conv_kernel() { return OpKernel{"Conv", 7, 18, infer_conv, compute_conv}; }

}  // namespace inferlab::kernels::reference
