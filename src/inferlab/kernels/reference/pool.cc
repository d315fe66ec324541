// AveragePool and MaxPool (N-d, strides, pads, auto_pad, ceil_mode, MaxPool
// dilations and Indices output with storage_order), written as one window
// walk: for every output position the per-dim range of kernel taps that land
// inside the input is computed once, then the taps are visited.
#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::reference {
namespace {

enum class PoolKind { kAverage, kMax };

struct PoolProblem {
  int64_t planes = 0;  // N * C
  WindowGeometry geometry;
  Shape output_shape;
};

PoolProblem pool_problem(const NodeInfo& node, PoolKind kind, const Shape& x) {
  if (x.size() < 3) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 3 (N x C x D1 ...), got {}",
              shape_to_string(x));
  }
  const Shape kernel = node.attr_ints("kernel_shape");
  WindowOptions options;
  options.ceil_mode = node.opset() >= 10 && node.attr_int("ceil_mode", 0) != 0;
  options.allow_dilations = kind == PoolKind::kMax;
  PoolProblem p;
  p.planes = x[0] * x[1];
  p.geometry = resolve_window(node, Shape(x.begin() + 2, x.end()), kernel, options);
  p.output_shape = {x[0], x[1]};
  p.output_shape.insert(p.output_shape.end(), p.geometry.output.begin(), p.geometry.output.end());
  return p;
}

// The taps [first, last) of one dim that fall inside the input, for the
// window that starts at `start`.
struct TapRange {
  int64_t start = 0;
  int64_t first = 0;
  int64_t last = 0;
};

TapRange tap_range(const WindowGeometry& g, size_t dim, int64_t out_index) {
  TapRange r;
  const int64_t d = g.dilations[dim];
  r.start = out_index * g.strides[dim] - g.pads_begin[dim];
  r.first = r.start < 0 ? (-r.start + d - 1) / d : 0;
  const int64_t room = g.input[dim] - 1 - r.start;  // last valid position - start
  r.last = room < 0 ? 0 : std::min(g.kernel[dim], room / d + 1);
  r.first = std::min(r.first, r.last);
  return r;
}

// Per spatial dim (inline storage: pooling runs allocate nothing).
using TapRanges = std::array<TapRange, Shape::kInlineDims>;

TapRanges tap_ranges(const NodeInfo& node, const WindowGeometry& g) {
  if (g.rank() > Shape::kInlineDims) {
    node.fail(ErrorCode::kUnsupported, "pooling over {} spatial dims (at most {})", g.rank(),
              Shape::kInlineDims);
  }
  return TapRanges{};
}

// Visits every valid tap of one window: visit(row_major_offset, per-dim coords).
template <typename Visit>
void for_each_tap(const WindowGeometry& g, const TapRange* ranges, Shape& coord, Visit&& visit) {
  const size_t rank = g.rank();
  for (size_t i = 0; i < rank; ++i) {
    if (ranges[i].first >= ranges[i].last) return;
  }
  Shape tap(rank);
  for (size_t i = 0; i < rank; ++i) tap[i] = ranges[i].first;
  while (true) {
    int64_t offset = 0;
    for (size_t i = 0; i < rank; ++i) {
      coord[i] = ranges[i].start + tap[i] * g.dilations[i];
      offset = offset * g.input[i] + coord[i];
    }
    visit(offset);
    size_t i = rank;
    while (i-- > 0) {
      if (++tap[i] < ranges[i].last) break;
      tap[i] = ranges[i].first;
    }
    if (i == static_cast<size_t>(-1)) return;
  }
}

template <typename T>
void average_pool(const NodeInfo& node, const PoolProblem& p, const T* x, T* y) {
  const WindowGeometry& g = p.geometry;
  const bool include_pad = node.attr_int("count_include_pad", 0) != 0;
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  TapRanges ranges = tap_ranges(node, g);
  Shape out(g.rank(), 0);
  Shape coord(g.rank());
  for (int64_t o = 0; o < out_size; ++o) {
    int64_t divisor = 1;
    for (size_t i = 0; i < g.rank(); ++i) {
      ranges[i] = tap_range(g, i, out[i]);
      const int64_t padded_end =
          std::min(ranges[i].start + g.kernel[i], g.input[i] + g.pads_end[i]);
      divisor *= include_pad ? padded_end - ranges[i].start : ranges[i].last - ranges[i].first;
    }
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* image = x + plane * in_size;
      double sum = 0;
      for_each_tap(g, ranges.data(), coord, [&](int64_t offset) { sum += image[offset]; });
      y[plane * out_size + o] =
          divisor > 0 ? static_cast<T>(sum / static_cast<double>(divisor)) : T(0);
    }
    for (size_t i = g.rank(); i-- > 0;) {
      if (++out[i] < g.output[i]) break;
      out[i] = 0;
    }
  }
}

template <typename T>
void max_pool(const NodeInfo& node, const PoolProblem& p, const T* x, T* y, int64_t* indices) {
  const WindowGeometry& g = p.geometry;
  const bool column_major = node.attr_int("storage_order", 0) != 0;
  const int64_t in_size = shape_numel(g.input);
  const int64_t out_size = shape_numel(g.output);
  TapRanges ranges = tap_ranges(node, g);
  Shape out(g.rank(), 0);
  Shape coord(g.rank());
  for (int64_t o = 0; o < out_size; ++o) {
    for (size_t i = 0; i < g.rank(); ++i) ranges[i] = tap_range(g, i, out[i]);
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      const T* image = x + plane * in_size;
      T best = std::numeric_limits<T>::lowest();
      int64_t best_index = -1;
      for_each_tap(g, ranges.data(), coord, [&](int64_t offset) {
        if (best_index >= 0 && !(image[offset] > best)) return;
        best = image[offset];
        if (!column_major) {
          best_index = offset;
          return;
        }
        best_index = 0;
        for (size_t i = g.rank(); i-- > 0;) best_index = best_index * g.input[i] + coord[i];
      });
      y[plane * out_size + o] = best;
      if (indices != nullptr) {
        indices[plane * out_size + o] = plane * in_size + std::max<int64_t>(best_index, 0);
      }
    }
    for (size_t i = g.rank(); i-- > 0;) {
      if (++out[i] < g.output[i]) break;
      out[i] = 0;
    }
  }
}

void infer_average_pool(InferContext& ctx) {
  const PoolProblem p = pool_problem(ctx.node(), PoolKind::kAverage, ctx.input(0).shape);
  ctx.set_output(0, ctx.input(0).dtype, p.output_shape);
}

void compute_average_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const PoolProblem p = pool_problem(ctx.node(), PoolKind::kAverage, x.shape());
  Tensor& y = ctx.output(0, x.dtype(), p.output_shape);
  visit_float_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    average_pool<T>(ctx.node(), p, x.data<T>(), y.data<T>());
  });
}

void check_max_pool_dtype(const NodeInfo& node, DataType dtype) {
  const bool small_ints =
      node.opset() >= 12 && (dtype == DataType::kInt8 || dtype == DataType::kUint8);
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64 && !small_ints) {
    node.fail(ErrorCode::kUnsupported, "element type {} is not supported", dtype_name(dtype));
  }
}

void infer_max_pool(InferContext& ctx) {
  check_max_pool_dtype(ctx.node(), ctx.input(0).dtype);
  const PoolProblem p = pool_problem(ctx.node(), PoolKind::kMax, ctx.input(0).shape);
  ctx.set_output(0, ctx.input(0).dtype, p.output_shape);
  ctx.set_output(1, DataType::kInt64, p.output_shape);
}

void compute_max_pool(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  check_max_pool_dtype(ctx.node(), x.dtype());
  const PoolProblem p = pool_problem(ctx.node(), PoolKind::kMax, x.shape());
  Tensor& y = ctx.output(0, x.dtype(), p.output_shape);
  int64_t* indices = nullptr;
  if (ctx.num_outputs() > 1)
    indices = ctx.output(1, DataType::kInt64, p.output_shape).data<int64_t>();
  visit_dtype(x.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
      max_pool<T>(ctx.node(), p, x.data<T>(), y.data<T>(), indices);
    }
  });
}

}  // namespace

OpKernel average_pool_kernel() {
  return OpKernel{"AveragePool", 7, 18, infer_average_pool, compute_average_pool};
}

OpKernel max_pool_kernel() { return OpKernel{"MaxPool", 7, 18, infer_max_pool, compute_max_pool}; }

}  // namespace inferlab::kernels::reference
