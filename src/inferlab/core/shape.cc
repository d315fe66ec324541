#include "inferlab/core/shape.h"

#include <algorithm>
#include <limits>

#include "inferlab/core/error.h"

namespace inferlab {

Shape& Shape::operator=(const Shape& other) {
  if (this != &other) assign(other.begin(), other.end());
  return *this;
}

Shape& Shape::operator=(Shape&& other) noexcept {
  if (this != &other) {
    release();
    take(other);
  }
  return *this;
}

Shape& Shape::operator=(std::initializer_list<int64_t> dims) {
  assign(dims.begin(), dims.end());
  return *this;
}

void Shape::release() {
  if (!is_inline()) delete[] data_;
  data_ = inline_;
  size_ = 0;
  capacity_ = kInlineDims;
}

void Shape::take(Shape& other) noexcept {
  if (other.is_inline()) {
    std::copy(other.begin(), other.end(), inline_);
    data_ = inline_;
    capacity_ = kInlineDims;
  } else {
    data_ = other.data_;
    capacity_ = other.capacity_;
  }
  size_ = other.size_;
  other.data_ = other.inline_;
  other.size_ = 0;
  other.capacity_ = kInlineDims;
}

int64_t& Shape::at(size_t i) {
  if (i >= size_) fail(ErrorCode::kRuntime, "dimension {} of a rank-{} shape", i, size_);
  return data_[i];
}

const int64_t& Shape::at(size_t i) const {
  if (i >= size_) fail(ErrorCode::kRuntime, "dimension {} of a rank-{} shape", i, size_);
  return data_[i];
}

void Shape::reserve(size_t count) {
  if (count <= capacity_) return;
  const size_t grown = std::max(count, capacity_ * 2);
  auto* bigger = new int64_t[grown];
  std::copy(begin(), end(), bigger);
  if (!is_inline()) delete[] data_;
  data_ = bigger;
  capacity_ = grown;
}

void Shape::resize(size_t count, int64_t value) {
  reserve(count);
  for (size_t i = size_; i < count; ++i) data_[i] = value;
  size_ = count;
}

void Shape::push_back(int64_t dim) {
  if (size_ == capacity_) reserve(size_ + 1);
  data_[size_++] = dim;
}

void Shape::assign(size_t count, int64_t value) {
  clear();
  resize(count, value);
}

size_t Shape::open_gap(const_iterator pos, size_t count) {
  const size_t at = static_cast<size_t>(pos - data_);
  reserve(size_ + count);
  std::copy_backward(data_ + at, data_ + size_, data_ + size_ + count);
  size_ += count;
  return at;
}

Shape::iterator Shape::insert(const_iterator pos, size_t count, int64_t dim) {
  const size_t at = open_gap(pos, count);
  std::fill(data_ + at, data_ + at + count, dim);
  return data_ + at;
}

Shape::iterator Shape::erase(const_iterator first, const_iterator last) {
  const size_t from = static_cast<size_t>(first - data_);
  const size_t to = static_cast<size_t>(last - data_);
  std::copy(data_ + to, data_ + size_, data_ + from);
  size_ -= to - from;
  return data_ + from;
}

bool operator==(const Shape& a, const Shape& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

bool operator<(const Shape& a, const Shape& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

int64_t checked_mul(int64_t a, int64_t b, std::string_view what) {
  int64_t result = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &result)) {
    fail(ErrorCode::kLimitExceeded, "{}: size {} x {} overflows", what, a, b);
  }
  return result;
}

int64_t shape_numel(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    int64_t next = 0;
    if (dim < 0)
      fail(ErrorCode::kInvalidArgument, "shape {} has a negative dimension",
           shape_to_string(shape));
    // The message is built only on failure: numel runs on every tensor view.
    if (__builtin_mul_overflow(count, dim, &next)) {
      fail(ErrorCode::kLimitExceeded, "shape {}: size {} x {} overflows", shape_to_string(shape),
           count, dim);
    }
    count = next;
  }
  return count;
}

Shape shape_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}
std::string shape_to_string(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

Shape parse_shape(const std::string& text, const std::string& what) {
  Shape shape;
  if (text.empty() || text == "scalar") return shape;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",x", start);
    if (end == std::string::npos) end = text.size();
    const std::string token = text.substr(start, end - start);
    size_t consumed = 0;
    int64_t dim = -1;
    try {
      dim = std::stoll(token, &consumed);
    } catch (const std::exception&) {
      consumed = 0;
    }
    if (token.empty() || consumed != token.size() || dim < 0) {
      fail(ErrorCode::kInvalidArgument, "{}: '{}' is not a shape (expected dims like 1,3,224,224)",
           what, text);
    }
    shape.push_back(dim);
    start = end + 1;
  }
  return shape;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view what) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail(ErrorCode::kInvalidArgument, "{}: shapes {} and {} cannot be broadcast", what,
           shape_to_string(a), shape_to_string(b));
    }
    result[i] = da == 1 ? db : da;
  }
  return result;
}

int64_t normalize_axis(int64_t axis, int64_t rank, std::string_view what) {
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    fail(ErrorCode::kInvalidArgument, "{}: axis {} is out of range for rank {}", what, axis, rank);
  }
  return normalized;
}

}  // namespace inferlab
