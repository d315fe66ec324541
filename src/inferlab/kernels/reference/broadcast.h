// Numpy-style (multidirectional) broadcasting shared by every elementwise
// kernel with more than one input: Add..Pow, comparisons, Max/Min/Mean/Sum,
// Where, PRelu. The one idea: inputs are read through per-dimension strides
// that are zero on broadcast dimensions; equal shapes and scalars skip the
// index arithmetic entirely, so the common cases are plain loops.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "inferlab/core/shape.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

// Broadcast of all `shapes`; throws kInvalidArgument naming the node when incompatible.
Shape broadcast_all(const NodeInfo& node, const std::vector<Shape>& shapes);
// The same for a braced list (no vector built: kernels call this per run).
Shape broadcast_all(const NodeInfo& node, std::initializer_list<Shape> shapes);

// Strides (in elements) for reading `input` as if it had shape `output`:
// right-aligned, zero where the input dimension is 1 or missing.
Shape broadcast_strides(const Shape& input, const Shape& output);

// Calls fn(out_index, offsets) for every element of `out_shape`, where
// offsets[k] is the element of input k that broadcasts to it. Every input
// shape must broadcast to `out_shape` (callers derive it with broadcast_all).
template <size_t N, typename Fn>
void for_each_broadcast(const Shape& out_shape, const std::array<Shape, N>& in_shapes, Fn&& fn) {
  const int64_t total = shape_numel(out_shape);
  if (total == 0) return;
  // Fast path: every input is either full-size (same layout as the output) or a single element.
  std::array<int64_t, N> step{};
  bool simple = true;
  for (size_t k = 0; k < N; ++k) {
    const int64_t count = shape_numel(in_shapes[k]);
    if (count == total) {
      step[k] = 1;
    } else if (count == 1) {
      step[k] = 0;
    } else {
      simple = false;
    }
  }
  std::array<int64_t, N> offsets{};
  if (simple) {
    for (int64_t i = 0; i < total; ++i) {
      for (size_t k = 0; k < N; ++k) offsets[k] = i * step[k];
      fn(i, offsets);
    }
    return;
  }
  // General path: a tight loop over the innermost dimension, an odometer over the rest.
  const size_t rank = out_shape.size();
  std::array<Shape, N> strides;
  for (size_t k = 0; k < N; ++k) strides[k] = broadcast_strides(in_shapes[k], out_shape);
  const int64_t inner = out_shape[rank - 1];
  Shape counter(rank, 0);
  std::array<int64_t, N> base{};
  int64_t out_index = 0;
  while (out_index < total) {
    for (int64_t j = 0; j < inner; ++j) {
      for (size_t k = 0; k < N; ++k) offsets[k] = base[k] + j * strides[k][rank - 1];
      fn(out_index++, offsets);
    }
    for (size_t d = rank - 1; d-- > 0;) {
      ++counter[d];
      for (size_t k = 0; k < N; ++k) base[k] += strides[k][d];
      if (counter[d] < out_shape[d]) break;
      for (size_t k = 0; k < N; ++k) base[k] -= strides[k][d] * out_shape[d];
      counter[d] = 0;
    }
  }
}

}  // namespace inferlab::kernels::reference
