// ConvTranspose: the gradient of Conv with respect to its input. Per batch and
// group, col = W^T * X with the shared blocked GEMM, then col2im scatters
// every kernel tap's row into the (cropped by pads) output.
#include <algorithm>
#include <memory>
#include <vector>

#include "inferlab/kernels/reference/gemm_f32.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::reference {
namespace {

struct ConvTransposeProblem {
  int64_t batch = 0;
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t group = 1;
  WindowGeometry geometry;  // input = X's spatial dims, output = Y's
  Shape output_shape;
};

ConvTransposeProblem conv_transpose_problem(const NodeInfo& node, const Shape& x, const Shape& w,
                                            const Shape* bias) {
  if (x.size() < 3) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 3 (N x C x D1 ...), got {}",
              shape_to_string(x));
  }
  if (w.size() != x.size()) {
    node.fail(ErrorCode::kInvalidArgument, "weights W {} must have the rank of X {}",
              shape_to_string(w), shape_to_string(x));
  }
  ConvTransposeProblem p;
  p.batch = x[0];
  p.in_channels = x[1];
  p.group = node.attr_int("group", 1);
  if (p.group < 1) node.fail(ErrorCode::kInvalidModel, "group {} must be positive", p.group);
  if (w[0] != p.in_channels) {
    node.fail(ErrorCode::kInvalidArgument, "X has {} channels but W {} expects {}", p.in_channels,
              shape_to_string(w), w[0]);
  }
  if (p.in_channels % p.group != 0) {
    node.fail(ErrorCode::kInvalidArgument, "group {} does not divide the {} input channels",
              p.group, p.in_channels);
  }
  p.out_channels = w[1] * p.group;
  if (bias != nullptr && (bias->size() != 1 || (*bias)[0] != p.out_channels)) {
    node.fail(ErrorCode::kInvalidArgument, "bias B {} must have shape [{}]", shape_to_string(*bias),
              p.out_channels);
  }
  const Shape spatial(x.begin() + 2, x.end());
  p.geometry = resolve_transposed_window(node, spatial, kernel_from_weights(node, w));
  p.output_shape = {p.batch, p.out_channels};
  p.output_shape.insert(p.output_shape.end(), p.geometry.output.begin(), p.geometry.output.end());
  return p;
}

// Adds one kernel tap's row (one value per input position) into the output
// image at output = input * stride + tap * dilation - pad_begin.
template <typename T>
void col2im_row(const T* row, const WindowGeometry& g, const Shape& tap, T* image) {
  const size_t rank = g.rank();
  const size_t last = rank - 1;
  const int64_t in_w = g.input[last];
  const int64_t out_w = g.output[last];
  const int64_t s_w = g.strides[last];
  const int64_t offset_w = tap[last] * g.dilations[last] - g.pads_begin[last];
  int64_t lo = 0;
  while (lo < in_w && lo * s_w + offset_w < 0) ++lo;
  int64_t hi = in_w;
  while (hi > lo && (hi - 1) * s_w + offset_w >= out_w) --hi;
  int64_t outer_count = 1;
  for (size_t i = 0; i < last; ++i) outer_count *= g.input[i];
  Shape outer(last, 0);
  for (int64_t o = 0; o < outer_count; ++o, row += in_w) {
    int64_t base = 0;
    bool inside = true;
    for (size_t i = 0; i < last; ++i) {
      const int64_t coord = outer[i] * g.strides[i] + tap[i] * g.dilations[i] - g.pads_begin[i];
      inside = inside && coord >= 0 && coord < g.output[i];
      base = base * g.output[i] + coord;
    }
    for (size_t i = last; i-- > 0;) {
      if (++outer[i] < g.input[i]) break;
      outer[i] = 0;
    }
    if (!inside) continue;
    T* dst = image + base * out_w + offset_w;
    for (int64_t ix = lo; ix < hi; ++ix) dst[ix * s_w] += row[ix];
  }
}

template <typename T>
void col2im(const T* col, int64_t channels, const WindowGeometry& g, T* image) {
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  const int64_t taps = shape_numel(g.kernel);
  Shape tap(g.rank(), 0);
  for (int64_t c = 0; c < channels; ++c) {
    std::fill(tap.begin(), tap.end(), 0);
    for (int64_t t = 0; t < taps; ++t) {
      col2im_row(col + (c * taps + t) * in_size, g, tap, image + c * out_size);
      for (size_t i = g.rank(); i-- > 0;) {
        if (++tap[i] < g.kernel[i]) break;
        tap[i] = 0;
      }
    }
  }
}

template <typename T>
void run_conv_transpose(const ConvTransposeProblem& p, const T* x, const T* w, const T* bias,
                        T* y) {
  const WindowGeometry& g = p.geometry;
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  const int64_t c_per_group = p.in_channels / p.group;
  const int64_t m_per_group = p.out_channels / p.group;
  const int64_t rows = m_per_group * shape_numel(g.kernel);
  // Uninitialized on purpose: the GEMM (beta = 0) writes every element.
  std::unique_ptr<T[]> col(new T[static_cast<size_t>(checked_mul(rows, in_size, "col2im"))]);
  for (int64_t n = 0; n < p.batch; ++n) {
    T* image = y + n * p.out_channels * out_size;
    for (int64_t m = 0; m < p.out_channels; ++m) {
      std::fill(image + m * out_size, image + (m + 1) * out_size, bias ? bias[m] : T(0));
    }
    for (int64_t grp = 0; grp < p.group; ++grp) {
      const T* input = x + (n * p.in_channels + grp * c_per_group) * in_size;
      gemm_blocked(GemmShape{rows, in_size, c_per_group}, true, false, T(1),
                   w + grp * c_per_group * rows, rows, input, in_size, T(0), col.get(), in_size);
      col2im(col.get(), m_per_group, g, image + grp * m_per_group * out_size);
    }
  }
}

void infer_conv_transpose(InferContext& ctx) {
  const bool has_bias = ctx.has_input(2);
  const ConvTransposeProblem p = conv_transpose_problem(
      ctx.node(), ctx.input(0).shape, ctx.input(1).shape, has_bias ? &ctx.input(2).shape : nullptr);
  ctx.set_output(0, ctx.input(0).dtype, p.output_shape);
}

void compute_conv_transpose(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const ConvTransposeProblem p =
      conv_transpose_problem(ctx.node(), x.shape(), w.shape(), bias ? &bias->shape() : nullptr);
  for (const Tensor* t : {&w, bias}) {
    if (t != nullptr && t->dtype() != x.dtype()) {
      ctx.node().fail(ErrorCode::kInvalidArgument, "W and B must have X's type {}, got {}",
                      dtype_name(x.dtype()), dtype_name(t->dtype()));
    }
  }
  Tensor& y = ctx.output(0, x.dtype(), p.output_shape);
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_conv_transpose<T>(p, x.data<T>(), w.data<T>(), bias ? bias->data<T>() : nullptr,
                          y.data<T>());
  });
}

}  // namespace

OpKernel conv_transpose_kernel() {
  return OpKernel{"ConvTranspose", 7, 18, infer_conv_transpose, compute_conv_transpose};
}

}  // namespace inferlab::kernels::reference
