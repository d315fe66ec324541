// Helpers shared by the data-movement kernels (Reshape, Transpose, Slice,
// Gather, Pad, ...). The one idea: most of these operators are a strided
// copy — walk the output in row-major order and read the source at
// base + sum(index[i] * source_stride[i]) — done with the element's real C++
// type (visit_any_dtype), so every ONNX type, strings included, works.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

// Copies `shape` elements into dst (row-major, dense) from
// src[base + sum(index[i] * src_strides[i])].
template <typename T>
void strided_copy(const T* src, int64_t base, const Shape& shape, const Shape& src_strides,
                  T* dst) {
  const int64_t total = shape_numel(shape);
  if (total == 0) return;
  const size_t rank = shape.size();
  if (rank == 0) {
    dst[0] = src[base];
    return;
  }
  const int64_t inner = shape[rank - 1];
  const int64_t inner_stride = src_strides[rank - 1];
  Shape index(rank, 0);
  int64_t offset = base;
  for (int64_t out = 0; out < total; out += inner) {
    if (inner_stride == 1) {
      std::copy(src + offset, src + offset + inner, dst + out);
    } else {
      for (int64_t k = 0; k < inner; ++k) dst[out + k] = src[offset + k * inner_stride];
    }
    for (int64_t axis = static_cast<int64_t>(rank) - 2; axis >= 0; --axis) {
      offset += src_strides[axis];
      if (++index[axis] < shape[axis]) break;
      offset -= src_strides[axis] * shape[axis];
      index[axis] = 0;
    }
  }
}

// Type-dispatched strided_copy from tensor `src` into tensor `dst` (same dtype,
// dst.shape() == shape).
inline void strided_copy_tensor(const Tensor& src, int64_t base, const Shape& src_strides,
                                Tensor& dst, const NodeInfo& node) {
  if (dst.numel() == 0) return;
  visit_any_dtype(src.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    strided_copy<T>(src.data<T>(), base, dst.shape(), src_strides, dst.data<T>());
  });
}

// An integer input (axes, pads, repeats, shape) as int64, naming the node
// and the input when it is not an integer tensor. A Shape (small vector):
// reading a short shape or axes input per run allocates nothing.
inline Shape int64_values(const NodeInfo& node, const Tensor& tensor, const char* what) {
  if (!is_integer_dtype(tensor.dtype())) {
    node.fail(ErrorCode::kInvalidModel, "input '{}' must be an integer tensor, got {}", what,
              dtype_name(tensor.dtype()));
  }
  Shape values(static_cast<size_t>(tensor.numel()));
  visit_dtype(tensor.dtype(), what, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T* in = tensor.data<T>();
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(in[i]);
    }
  });
  return values;
}

// normalize_axis with the node named in the error.
inline int64_t node_axis(const NodeInfo& node, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    node.fail(ErrorCode::kInvalidModel, "axis {} is out of range for rank {}", axis, rank);
  }
  return axis < 0 ? axis + rank : axis;
}

// A data-supplied index normalized against an axis of size `size` (negative
// counts from the end); out of range is an error naming value and size.
inline int64_t checked_index(const NodeInfo& node, int64_t index, int64_t size, int64_t axis) {
  const int64_t normalized = index < 0 ? index + size : index;
  if (normalized < 0 || normalized >= size) {
    node.fail(ErrorCode::kOutOfRange, "index {} is out of range for axis {} of size {}", index,
              axis, size);
  }
  return normalized;
}

// GatherElements / ScatterElements addressing: for each element of `indices`
// (same rank as data, no larger off `axis`), the offset in data of its own
// coordinates with the axis coordinate replaced by the (checked) index.
inline std::vector<int64_t> element_offsets_along_axis(const NodeInfo& node,
                                                       const Shape& data_shape,
                                                       const Shape& indices_shape,
                                                       const std::vector<int64_t>& indices,
                                                       size_t axis) {
  for (size_t d = 0; d < indices_shape.size(); ++d) {
    if (d != axis && indices_shape[d] > data_shape[d]) {
      node.fail(ErrorCode::kInvalidArgument, "indices {} exceed data {} on axis {}",
                shape_to_string(indices_shape), shape_to_string(data_shape), d);
    }
  }
  const std::vector<int64_t> strides = shape_strides(data_shape);
  std::vector<int64_t> offsets(indices.size());
  std::vector<int64_t> coord(indices_shape.size(), 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < indices_shape.size(); ++d) {
      const int64_t c =
          d == axis ? checked_index(node, indices[i], data_shape[d], static_cast<int64_t>(d))
                    : coord[d];
      offset += c * strides[d];
    }
    offsets[i] = offset;
    for (size_t d = indices_shape.size(); d-- > 0;) {  // odometer over the indices' shape
      if (++coord[d] < indices_shape[d]) break;
      coord[d] = 0;
    }
  }
  return offsets;
}

// Product of shape[begin, end).
inline int64_t dims_product(const Shape& shape, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) product *= shape[i];
  return product;
}

// Numbers as double and back, for the few kernels that compute (Resize,
// TopK keys); float16/bfloat16 go through float.
template <typename T>
double to_double(const T& value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return static_cast<double>(value.to_float());
  } else {
    return static_cast<double>(value);
  }
}

template <typename T>
T from_double(double value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return T::from_float(static_cast<float>(value));
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Saturate: casting a NaN or out-of-range double to an integer is undefined.
    if (std::isnan(value)) return T{0};
    const double rounded = std::nearbyint(value);
    if (rounded <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return static_cast<T>(rounded);
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace inferlab::kernels::reference
