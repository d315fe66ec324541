// Helpers shared by Gemm, MatMul and Einsum: dtype checks for the matrix
// products and a plain integer matrix multiply (the float types go through the
// blocked GEMM in gemm_f32.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "inferlab/core/data_type.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

// float, double, int32, int64, uint32, uint64: the types ONNX allows for
// Gemm and MatMul.
inline bool is_matmul_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint32:
    case DataType::kUint64:
      return true;
    default:
      return false;
  }
}

// c[m x n] = a[m x k] * b[k x n], row-major with leading dims; integer
// overflow wraps (computed in the unsigned type, never undefined behaviour).
template <typename T>
void integer_matmul(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                    int64_t ldb, T* c, int64_t ldc) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < m; ++i) {
    U* row = reinterpret_cast<U*>(c + i * ldc);
    for (int64_t j = 0; j < n; ++j) row[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const U av = static_cast<U>(a[i * lda + p]);
      const T* brow = b + p * ldb;
      for (int64_t j = 0; j < n; ++j) row[j] += av * static_cast<U>(brow[j]);
    }
  }
}

}  // namespace inferlab::kernels::reference
