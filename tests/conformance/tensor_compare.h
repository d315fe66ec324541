// Compares an InferLab output with the ONNX reference output: same dtype and
// shape, floating point within |a-b| <= 1e-5 + 1e-3*|b| (NaN equals NaN,
// infinities must match exactly), every other type exactly (strings by value).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "inferlab/core/tensor.h"

namespace inferlab::conformance {

inline constexpr double kAbsoluteTolerance = 1e-5;
inline constexpr double kRelativeTolerance = 1e-3;

namespace detail {

inline bool floats_match(double actual, double expected) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return actual == expected;
  return std::fabs(actual - expected) <=
         kAbsoluteTolerance + kRelativeTolerance * std::fabs(expected);
}

template <typename T>
double as_double(const T& value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return value.to_float();
  } else {
    return static_cast<double>(value);
  }
}

template <typename T>
std::string show(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return fmt::format("\"{}\"", value.size() > 40 ? value.substr(0, 40) + "..." : value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return fmt::format("{}", value.to_float());
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    return fmt::format("{}", static_cast<int>(value));
  } else {
    return fmt::format("{}", value);
  }
}

template <typename T>
bool elements_match(const T& actual, const T& expected) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return floats_match(as_double(actual), as_double(expected));
  } else {
    return actual == expected;
  }
}

// Describes the first mismatch, how many elements differ and, for floats, the
// largest absolute error.
template <typename T>
std::optional<std::string> compare_elements(const Tensor& actual, const Tensor& expected) {
  const T* a = actual.data<T>();
  const T* e = expected.data<T>();
  int64_t mismatches = 0;
  int64_t first = -1;
  double max_abs_error = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    if (elements_match(a[i], e[i])) continue;
    if (first < 0) first = i;
    ++mismatches;
    if constexpr (!std::is_same_v<T, std::string>) {
      const double error = std::fabs(as_double(a[i]) - as_double(e[i]));
      if (!std::isnan(error) && error > max_abs_error) max_abs_error = error;
    }
  }
  if (mismatches == 0) return std::nullopt;
  std::string message =
      fmt::format("element {} is {}, expected {} ({} of {} elements differ", first, show(a[first]),
                  show(e[first]), mismatches, expected.numel());
  if constexpr (!std::is_same_v<T, std::string>) {
    if (max_abs_error > 0) message += fmt::format(", max |a-b| {:.3g}", max_abs_error);
  }
  return message + ")";
}

}  // namespace detail

// nullopt when `actual` matches `expected`, otherwise what differs.
inline std::optional<std::string> compare_tensors(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype()) {
    return fmt::format("dtype {}, expected {}", dtype_name(actual.dtype()),
                       dtype_name(expected.dtype()));
  }
  if (actual.shape() != expected.shape()) {
    return fmt::format("shape {}, expected {}", shape_to_string(actual.shape()),
                       shape_to_string(expected.shape()));
  }
  return visit_any_dtype(expected.dtype(), "conformance comparison", [&](auto tag) {
    using T = typename decltype(tag)::type;
    return detail::compare_elements<T>(actual, expected);
  });
}

}  // namespace inferlab::conformance
