#include "inferlab/core/tensor.h"

#include <cstdint>
#include <cstring>

#include "inferlab/core/huge_pages.h"

namespace inferlab {

Tensor::Tensor(DataType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), numel_(shape_numel(shape_)) {
  allocate(true);
}

Tensor Tensor::uninitialized(DataType dtype, Shape shape) {
  if (dtype == DataType::kString)
    fail(ErrorCode::kRuntime, "string tensors are always initialized");
  Tensor tensor;
  tensor.dtype_ = dtype;
  tensor.shape_ = std::move(shape);
  tensor.numel_ = shape_numel(tensor.shape_);
  tensor.allocate(false);
  return tensor;
}

void Tensor::allocate(bool zeroed) {
  if (dtype_ == DataType::kUndefined)
    fail(ErrorCode::kRuntime, "tensor with undefined element type");
  if (dtype_ == DataType::kString) {
    auto* strings = new std::string[static_cast<size_t>(numel_)];
    storage_ =
        std::shared_ptr<void>(strings, [](void* p) { delete[] static_cast<std::string*>(p); });
    data_ = strings;
    return;
  }
  const size_t bytes =
      static_cast<size_t>(checked_mul(numel_, static_cast<int64_t>(dtype_size(dtype_)), "tensor"));
  // Over-allocate by one element's alignment so empty tensors still get a valid pointer.
  void* memory = ::operator new (bytes == 0 ? 64 : bytes, std::align_val_t{64});
  advise_huge_pages(memory, bytes);
  if (zeroed) std::memset(memory, 0, bytes);
  storage_ =
      std::shared_ptr<void>(memory, [](void* p) { ::operator delete (p, std::align_val_t{64}); });
  data_ = memory;
}

Tensor Tensor::borrow(DataType dtype, Shape shape, void* data) {
  Tensor tensor;
  tensor.dtype_ = dtype;
  tensor.shape_ = std::move(shape);
  tensor.numel_ = shape_numel(tensor.shape_);
  tensor.data_ = data;
  return tensor;
}

Tensor Tensor::view(DataType dtype, Shape shape, std::shared_ptr<void> owner, void* data) {
  if (dtype == DataType::kString) fail(ErrorCode::kRuntime, "string tensors cannot be views");
  if (reinterpret_cast<uintptr_t>(data) % dtype_size(dtype) != 0) {
    fail(ErrorCode::kRuntime, "a {} view needs {}-byte aligned memory", dtype_name(dtype),
         dtype_size(dtype));
  }
  Tensor tensor = borrow(dtype, std::move(shape), data);
  tensor.storage_ = std::move(owner);
  return tensor;
}

void Tensor::check_type(DataType requested) const {
  if (requested != dtype_) {
    fail(ErrorCode::kRuntime, "tensor of type {} accessed as {}", dtype_name(dtype_),
         dtype_name(requested));
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> values(static_cast<size_t>(numel_));
  if (!is_integer_dtype(dtype_)) {
    fail(ErrorCode::kInvalidArgument, "expected an integer tensor, got {}", dtype_name(dtype_));
  }
  visit_dtype(dtype_, "to_int64_vector", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = static_cast<const T*>(data_);
    for (int64_t i = 0; i < numel_; ++i)
      values[static_cast<size_t>(i)] = static_cast<int64_t>(in[i]);
  });
  return values;
}

double Tensor::element_as_double(int64_t index) const {
  if (dtype_ == DataType::kFloat16) return static_cast<const Float16*>(data_)[index].to_float();
  if (dtype_ == DataType::kBFloat16) return static_cast<const BFloat16*>(data_)[index].to_float();
  return visit_dtype(dtype_, "element_as_double", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<const T*>(data_)[index]);
  });
}

Tensor Tensor::clone() const {
  if (empty()) return Tensor();
  Tensor copy(dtype_, shape_);
  if (dtype_ == DataType::kString) {
    const auto* in = static_cast<const std::string*>(data_);
    auto* out = static_cast<std::string*>(copy.data_);
    for (int64_t i = 0; i < numel_; ++i) out[i] = in[i];
  } else if (nbytes() > 0) {
    std::memcpy(copy.data_, data_, nbytes());
  }
  return copy;
}

Tensor Tensor::reshaped(Shape shape) const {
  const int64_t count = shape_numel(shape);
  if (count != numel_) {
    fail(ErrorCode::kInvalidArgument, "cannot reshape {} elements into {}", numel_,
         shape_to_string(shape));
  }
  Tensor view = *this;
  view.shape_ = std::move(shape);
  return view;
}

bool Tensor::equals(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (dtype_ == DataType::kString) {
    const auto* a = static_cast<const std::string*>(data_);
    const auto* b = static_cast<const std::string*>(other.data_);
    for (int64_t i = 0; i < numel_; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  return nbytes() == 0 || std::memcmp(data_, other.data_, nbytes()) == 0;
}

}  // namespace inferlab
