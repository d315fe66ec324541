// Concrete tensor shapes and the arithmetic every kernel needs on them, with
// overflow checks: sizes come from untrusted files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inferlab {

using Shape = std::vector<int64_t>;

// Product of dims; throws Error(kLimitExceeded) on overflow or a negative dim.
int64_t shape_numel(const Shape& shape);
// Row-major strides in elements.
std::vector<int64_t> shape_strides(const Shape& shape);
// "[1, 3, 224, 224]"
std::string shape_to_string(const Shape& shape);
// Parses "1,3,224,224" or "1x3x224x224"; throws Error(kInvalidArgument) naming `what`.
Shape parse_shape(const std::string& text, const std::string& what);
// Multidirectional (numpy) broadcast of two shapes; throws naming `what` when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what);
// Normalizes a possibly negative axis into [0, rank); throws naming `what` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const std::string& what);
// a * b with overflow check (throws kLimitExceeded naming `what`).
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);

}  // namespace inferlab
