#include "inferlab/core/shape.h"

#include <limits>

#include "inferlab/core/error.h"

namespace inferlab {

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t result = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &result)) {
    fail(ErrorCode::kLimitExceeded, "{}: size {} x {} overflows", what, a, b);
  }
  return result;
}

int64_t shape_numel(const Shape& shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0) fail(ErrorCode::kInvalidArgument, "shape {} has a negative dimension", shape_to_string(shape));
    count = checked_mul(count, dim, "shape " + shape_to_string(shape));
  }
  return count;
}

std::vector<int64_t> shape_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
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

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
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

int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  const int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    fail(ErrorCode::kInvalidArgument, "{}: axis {} is out of range for rank {}", what, axis, rank);
  }
  return normalized;
}

}  // namespace inferlab
