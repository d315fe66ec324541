// Element-type plumbing shared by the elementwise, reduction and cast kernels:
// sets of accepted types (checked against what ONNX allows), the arithmetic
// type a storage type computes in (float16/bfloat16 compute in float), and
// integer arithmetic that wraps instead of overflowing (signed overflow would
// be undefined behaviour; ONNX leaves it unspecified, two's complement wrap is
// what other runtimes produce).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "inferlab/core/data_type.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

// A set of DataTypes as a bit mask.
using TypeSet = uint32_t;

constexpr TypeSet type_bit(DataType dtype) { return TypeSet{1} << static_cast<int>(dtype); }

constexpr TypeSet kFloatTypes = type_bit(DataType::kFloat16) | type_bit(DataType::kBFloat16) |
                                type_bit(DataType::kFloat32) | type_bit(DataType::kFloat64);
constexpr TypeSet kSignedIntTypes = type_bit(DataType::kInt8) | type_bit(DataType::kInt16) |
                                    type_bit(DataType::kInt32) | type_bit(DataType::kInt64);
constexpr TypeSet kUnsignedIntTypes = type_bit(DataType::kUint8) | type_bit(DataType::kUint16) |
                                      type_bit(DataType::kUint32) | type_bit(DataType::kUint64);
constexpr TypeSet kIntTypes = kSignedIntTypes | kUnsignedIntTypes;
constexpr TypeSet kNumericTypes = kFloatTypes | kIntTypes;
constexpr TypeSet kBoolType = type_bit(DataType::kBool);
constexpr TypeSet kStringType = type_bit(DataType::kString);
constexpr TypeSet kAllTypes = kNumericTypes | kBoolType | kStringType;

// Throws naming the node and the input when `dtype` is not in `allowed`.
void check_input_type(const NodeInfo& node, size_t input_index, DataType dtype, TypeSet allowed);

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// The type a storage type T computes in.
template <typename T>
using arith_t = std::conditional_t<is_half_v<T>, float, T>;

template <typename T>
arith_t<T> widen(T value) {
  if constexpr (is_half_v<T>) {
    return value.to_float();
  } else {
    return value;
  }
}

// Converts a computed value back to storage type T (plain conversion; use
// saturate_cast where the value may be out of T's range).
template <typename T, typename C>
T narrow(C value) {
  if constexpr (is_half_v<T>) {
    return T::from_float(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

// Floating value -> integer without undefined behaviour: NaN becomes 0,
// values beyond the range clamp to its ends, the rest truncate toward zero.
template <typename I, typename F>
I saturate_cast(F value) {
  static_assert(std::is_integral_v<I> && std::is_floating_point_v<F>);
  if (std::isnan(value)) return 0;
  // 2^digits is exactly representable; compare against it rather than max() which may round up.
  const F upper = std::ldexp(F{1}, std::numeric_limits<I>::digits);
  if (value >= upper) return std::numeric_limits<I>::max();
  if (value <= static_cast<F>(std::numeric_limits<I>::lowest())) {
    return std::numeric_limits<I>::lowest();
  }
  return static_cast<I>(value);
}

// Integer add/sub/mul that wrap modulo 2^bits (no signed-overflow UB).
template <typename I>
I wrapping_add(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename I>
I wrapping_sub(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename I>
I wrapping_mul(I a, I b) {
  // Promote small unsigned types to a wide unsigned type: uint16*uint16 would promote to signed
  // int.
  using U = std::conditional_t<(sizeof(I) < sizeof(unsigned)), unsigned, std::make_unsigned_t<I>>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// Calls visitor(TypeTag<T>{}) for every numeric type and bool, plus float16
// and bfloat16 (not string).
template <typename Visitor>
decltype(auto) visit_numeric_dtype(DataType dtype, std::string_view what, Visitor&& visitor) {
  switch (dtype) {
    case DataType::kFloat16:
      return visitor(TypeTag<Float16>{});
    case DataType::kBFloat16:
      return visitor(TypeTag<BFloat16>{});
    default:
      return visit_dtype(dtype, what, std::forward<Visitor>(visitor));
  }
}

}  // namespace inferlab::kernels::reference
