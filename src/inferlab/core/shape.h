// Concrete tensor shapes and the arithmetic every kernel needs on them, with
// overflow checks: sizes come from untrusted files.
// Shape is a small vector: up to kInlineDims dims live inside the object, so
// copying a tensor's shape, or building one in a kernel, allocates nothing
// (steady-state runs make no heap allocation). Beyond that it uses the heap.
// Its API follows std::vector<int64_t>, and it converts to and from one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace inferlab {

class Shape {
 public:
  using value_type = int64_t;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = int64_t&;
  using const_reference = const int64_t&;
  using pointer = int64_t*;
  using const_pointer = const int64_t*;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  static constexpr size_t kInlineDims = 8;

  Shape() noexcept {}
  explicit Shape(size_t count, int64_t value = 0) { assign(count, value); }
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }  // NOLINT
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  Shape(Shape&& other) noexcept { take(other); }
  Shape& operator=(const Shape& other);
  Shape& operator=(Shape&& other) noexcept;
  Shape& operator=(std::initializer_list<int64_t> dims);
  ~Shape() { release(); }

  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }  // NOLINT
  std::vector<int64_t> to_vector() const { return std::vector<int64_t>(begin(), end()); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& at(size_t i);
  const int64_t& at(size_t i) const;
  int64_t& front() { return data_[0]; }
  const int64_t& front() const { return data_[0]; }
  int64_t& back() { return data_[size_ - 1]; }
  const int64_t& back() const { return data_[size_ - 1]; }

  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  void reserve(size_t count);
  void clear() { size_ = 0; }
  void resize(size_t count, int64_t value = 0);
  void push_back(int64_t dim);
  int64_t& emplace_back(int64_t dim) {
    push_back(dim);
    return back();
  }
  void pop_back() { --size_; }
  void assign(size_t count, int64_t value);
  template <typename It>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>) {
      reserve(static_cast<size_t>(std::distance(first, last)));
    }
    for (; first != last; ++first) push_back(static_cast<int64_t>(*first));
  }
  void assign(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  iterator insert(const_iterator pos, int64_t dim) { return insert(pos, size_t{1}, dim); }
  iterator insert(const_iterator pos, size_t count, int64_t dim);
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>>
  iterator insert(const_iterator pos, It first, It last) {
    const Shape copy(first, last);  // `first` may point into *this
    const size_t at = open_gap(pos, copy.size());
    for (size_t i = 0; i < copy.size(); ++i) data_[at + i] = copy[i];
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<int64_t> dims) {
    return insert(pos, dims.begin(), dims.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last);

  friend bool operator==(const Shape& a, const Shape& b);
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
  friend bool operator<(const Shape& a, const Shape& b);

 private:
  bool is_inline() const { return data_ == inline_; }
  void release();
  void take(Shape& other) noexcept;
  // Makes room for `count` dims at `pos`; returns the index of the gap.
  size_t open_gap(const_iterator pos, size_t count);

  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = kInlineDims;
  int64_t inline_[kInlineDims];
};

// Product of dims; throws Error(kLimitExceeded) on overflow or a negative dim.
int64_t shape_numel(const Shape& shape);
// Row-major strides in elements.
Shape shape_strides(const Shape& shape);
// "[1, 3, 224, 224]"
std::string shape_to_string(const Shape& shape);
// Parses "1,3,224,224" or "1x3x224x224"; throws Error(kInvalidArgument) naming `what`.
Shape parse_shape(const std::string& text, const std::string& what);
// Multidirectional (numpy) broadcast of two shapes; throws naming `what` when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view what);
// Normalizes a possibly negative axis into [0, rank); throws naming `what` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, std::string_view what);
// a * b with overflow check (throws kLimitExceeded naming `what`). `what` is a
// view so that a literal costs no allocation on the (hot) success path.
int64_t checked_mul(int64_t a, int64_t b, std::string_view what);

}  // namespace inferlab
