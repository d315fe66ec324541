// Deterministic inputs and comparisons for the nn kernel tests. pattern()
// matches the generator used to compute the expected values with torch:
//   v[i] = ((i * 7 + seed) % mod) / 8 - 1   (exact in float).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {

inline Tensor pattern(const Shape& shape, int64_t seed = 0, int64_t mod = 17,
                      DataType dtype = DataType::kFloat32) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = static_cast<double>((i * 7 + seed) % mod) / 8.0 - 1.0;
    if (dtype == DataType::kFloat64) {
      t.data<double>()[i] = v;
    } else {
      t.data<float>()[i] = static_cast<float>(v);
    }
  }
  return t;
}

// Every element of a float32/float64 tensor within tol of `expected`.
inline void expect_values(const Tensor& actual, const Shape& shape,
                          const std::vector<double>& expected, double tol = 1e-5) {
  ASSERT_EQ(actual.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(actual.numel()), expected.size());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    EXPECT_NEAR(actual.element_as_double(i), expected[i], tol + 1e-5 * std::fabs(expected[i]))
        << "element " << i;
  }
}

// Two tensors equal elementwise within tol (same shape).
inline void expect_close(const Tensor& actual, const Tensor& expected, double tol = 1e-4) {
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double want = expected.element_as_double(i);
    ASSERT_NEAR(actual.element_as_double(i), want, tol * (1 + std::fabs(want))) << "element " << i;
  }
}

}  // namespace inferlab::testing
