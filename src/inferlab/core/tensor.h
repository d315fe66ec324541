// Tensor: an element type, a shape and memory that is either owned (shared,
// reference counted) or borrowed from the caller. Copying a Tensor shares its
// memory; clone() copies it. String tensors hold an array of std::string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/data_type.h"
#include "inferlab/core/error.h"
#include "inferlab/core/shape.h"

namespace inferlab {

class Tensor {
 public:
  Tensor() = default;
  // Allocates zero-initialized memory (empty strings for string tensors).
  Tensor(DataType dtype, Shape shape);
  // Allocates without initializing (not for strings): for memory about to be
  // overwritten whole, whose pages then become resident only as they are written.
  static Tensor uninitialized(DataType dtype, Shape shape);
  // Wraps caller-owned memory; the caller keeps it alive while the Tensor is used.
  static Tensor borrow(DataType dtype, Shape shape, void* data);
  // Memory inside a buffer that `owner` keeps alive (a request's body, say):
  // the Tensor and its copies share the owner. `data` must be aligned for
  // the element type.
  static Tensor view(DataType dtype, Shape shape, std::shared_ptr<void> owner, void* data);
  // A type and a shape without memory: stands in for a value whose contents
  // are not held (has_data() is false; reading its elements is a bug).
  static Tensor shape_only(DataType dtype, Shape shape) {
    return borrow(dtype, std::move(shape), nullptr);
  }
  // A 0-d or 1-d tensor holding `values`.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape);
  template <typename T>
  static Tensor scalar(T value) {
    return from_vector<T>({value}, {});
  }

  bool empty() const { return dtype_ == DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t axis) const { return shape_.at(static_cast<size_t>(axis)); }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_size(dtype_); }
  bool owns_memory() const { return storage_ != nullptr; }
  bool has_data() const { return data_ != nullptr; }

  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }
  // Typed access; throws Error(kRuntime) when T does not match dtype().
  template <typename T>
  T* data() {
    check_type(dtype_of<T>());
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    check_type(dtype_of<T>());
    return static_cast<const T*>(data_);
  }
  // Copies the elements into a vector, converting integers to int64 (for
  // shape-like inputs: axes, pads, sizes). Throws for non-integer types.
  std::vector<int64_t> to_int64_vector() const;
  // Reads element `index` of a float32/float64/integer tensor as double.
  double element_as_double(int64_t index) const;

  // Deep copy with owned memory.
  Tensor clone() const;
  // Same memory, new shape with the same element count.
  Tensor reshaped(Shape shape) const;
  // Elementwise equality of dtype, shape and bytes (strings by value).
  bool equals(const Tensor& other) const;

 private:
  void check_type(DataType requested) const;
  void allocate(bool zeroed);

  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, Shape shape) {
  Tensor tensor(dtype_of<T>(), std::move(shape));
  if (static_cast<size_t>(tensor.numel()) != values.size()) {
    fail(ErrorCode::kInvalidArgument, "{} values do not fill shape {}", values.size(),
         shape_to_string(tensor.shape()));
  }
  T* out = tensor.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return tensor;
}

}  // namespace inferlab
