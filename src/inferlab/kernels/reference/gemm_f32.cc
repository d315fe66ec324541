// Packed GEMM in the GotoBLAS shape: C is updated in MC x NC blocks per KC
// slice of the shared dimension; A's block and B's panel are copied into
// contiguous micro-panels (zero-padded to whole micro-tiles) so the
// micro-kernel reads both with unit stride, and its MR x NR accumulators stay
// in vector registers. Transposition is absorbed by the packing.
#include "inferlab/kernels/reference/gemm_f32.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace inferlab::kernels::reference {
namespace {

template <typename T>
struct Blocking;
template <>
struct Blocking<float> {
  static constexpr int64_t kMr = 4;
  static constexpr int64_t kNr = 8;
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 96;
  static constexpr int64_t kNc = 1024;
};
template <>
struct Blocking<double> {
  static constexpr int64_t kMr = 4;
  static constexpr int64_t kNr = 4;
  static constexpr int64_t kKc = 256;
  static constexpr int64_t kMc = 64;
  static constexpr int64_t kNc = 512;
};

template <typename T>
struct Operand {
  const T* data;
  int64_t ld;
  bool transposed;
  // Element (row, col) of op(X).
  T at(int64_t row, int64_t col) const {
    return transposed ? data[col * ld + row] : data[row * ld + col];
  }
};

// Packs rows [row0, row0+rows) x cols [k0, k0+depth) of op(A) into MR-row
// micro-panels laid out k-major: panel[p][k][r].
template <typename T>
void pack_a(const Operand<T>& a, int64_t row0, int64_t rows, int64_t k0, int64_t depth, T* out) {
  constexpr int64_t kMr = Blocking<T>::kMr;
  for (int64_t p = 0; p < rows; p += kMr) {
    const int64_t valid = std::min(kMr, rows - p);
    for (int64_t k = 0; k < depth; ++k) {
      for (int64_t r = 0; r < kMr; ++r) {
        out[k * kMr + r] = r < valid ? a.at(row0 + p + r, k0 + k) : T(0);
      }
    }
    out += depth * kMr;
  }
}

// Packs rows [k0, k0+depth) x cols [col0, col0+cols) of op(B) into NR-column
// micro-panels laid out k-major: panel[p][k][c].
template <typename T>
void pack_b(const Operand<T>& b, int64_t k0, int64_t depth, int64_t col0, int64_t cols, T* out) {
  constexpr int64_t kNr = Blocking<T>::kNr;
  for (int64_t p = 0; p < cols; p += kNr) {
    const int64_t valid = std::min(kNr, cols - p);
    for (int64_t k = 0; k < depth; ++k) {
      T* dst = out + k * kNr;
      if (!b.transposed && valid == kNr) {
        const T* src = b.data + (k0 + k) * b.ld + col0 + p;
        for (int64_t c = 0; c < kNr; ++c) dst[c] = src[c];
      } else {
        for (int64_t c = 0; c < kNr; ++c) dst[c] = c < valid ? b.at(k0 + k, col0 + p + c) : T(0);
      }
    }
    out += depth * kNr;
  }
}

// acc = sum_k pa[k][:] (outer) pb[k][:]; then C[0:rows, 0:cols] += alpha * acc.
template <typename T>
void micro_kernel(int64_t depth, const T* pa, const T* pb, T alpha, T* c, int64_t ldc, int64_t rows,
                  int64_t cols) {
  constexpr int64_t kMr = Blocking<T>::kMr;
  constexpr int64_t kNr = Blocking<T>::kNr;
  T acc[kMr][kNr] = {};
  for (int64_t k = 0; k < depth; ++k) {
    const T* a_col = pa + k * kMr;
    const T* b_row = pb + k * kNr;
    for (int64_t r = 0; r < kMr; ++r) {
      for (int64_t j = 0; j < kNr; ++j) acc[r][j] += a_col[r] * b_row[j];
    }
  }
  if (rows == kMr && cols == kNr) {
    for (int64_t r = 0; r < kMr; ++r) {
      for (int64_t j = 0; j < kNr; ++j) c[r * ldc + j] += alpha * acc[r][j];
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] += alpha * acc[r][j];
  }
}

template <typename T>
void scale_c(const GemmShape& shape, T beta, T* c, int64_t ldc) {
  if (beta == T(1)) return;
  for (int64_t i = 0; i < shape.m; ++i) {
    T* row = c + i * ldc;
    if (beta == T(0)) {
      std::fill(row, row + shape.n, T(0));
    } else {
      for (int64_t j = 0; j < shape.n; ++j) row[j] *= beta;
    }
  }
}

// sum_p x[p] * y[p] with independent partial sums, so the compiler can
// vectorize without reassociating one accumulator.
template <typename T>
T dot(const T* x, const T* y, int64_t count) {
  constexpr int64_t kLanes = 8;
  T partial[kLanes] = {};
  int64_t p = 0;
  for (; p + kLanes <= count; p += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) partial[l] += x[p + l] * y[p + l];
  }
  T sum = 0;
  for (; p < count; ++p) sum += x[p] * y[p];
  for (int64_t l = 0; l < kLanes; ++l) sum += partial[l];
  return sum;
}

// Fewer rows than a micro-tile (matrix-vector products): packing would cost
// more than it saves. Each row of C accumulates rows of B (c[j] += a * b[j]),
// or, for a transposed B, takes dot products with B's rows.
template <typename T>
void few_rows(const GemmShape& shape, const Operand<T>& a, const Operand<T>& b, T alpha, T* c,
              int64_t ldc, T* a_row) {
  for (int64_t i = 0; i < shape.m; ++i) {
    for (int64_t p = 0; p < shape.k; ++p) a_row[p] = alpha * a.at(i, p);
    T* c_row = c + i * ldc;
    if (b.transposed) {
      for (int64_t j = 0; j < shape.n; ++j) c_row[j] += dot(a_row, b.data + j * b.ld, shape.k);
      continue;
    }
    for (int64_t p = 0; p < shape.k; ++p) {
      const T scale = a_row[p];
      const T* b_row = b.data + p * b.ld;
      for (int64_t j = 0; j < shape.n; ++j) c_row[j] += scale * b_row[j];
    }
  }
}

// Sizes of the packed panels of B and A (or of the scaled row of A when
// there are fewer rows than a micro-tile).
template <typename T>
std::pair<int64_t, int64_t> panel_elements(const GemmShape& shape) {
  using B = Blocking<T>;
  if (shape.m < B::kMr) return {shape.k, 0};
  const int64_t nc_max = std::min(B::kNc, (shape.n + B::kNr - 1) / B::kNr * B::kNr);
  const int64_t mc_max = std::min(B::kMc, (shape.m + B::kMr - 1) / B::kMr * B::kMr);
  const int64_t kc_max = std::min(B::kKc, shape.k);
  return {nc_max * kc_max, mc_max * kc_max};
}

template <typename T>
void gemm(const GemmShape& shape, bool trans_a, bool trans_b, T alpha, const T* a, int64_t lda,
          const T* b, int64_t ldb, T beta, T* c, int64_t ldc, T* workspace) {
  using B = Blocking<T>;
  scale_c(shape, beta, c, ldc);
  if (shape.m == 0 || shape.n == 0 || shape.k == 0 || alpha == T(0)) return;
  const Operand<T> op_a{a, lda, trans_a};
  const Operand<T> op_b{b, ldb, trans_b};
  const auto [b_elements, a_elements] = panel_elements<T>(shape);
  std::vector<T> own;
  if (workspace == nullptr) {
    own.resize(static_cast<size_t>(b_elements + a_elements));
    workspace = own.data();
  }
  if (shape.m < B::kMr) {
    few_rows(shape, op_a, op_b, alpha, c, ldc, workspace);
    return;
  }
  T* const packed_b = workspace;
  T* const packed_a = workspace + b_elements;
  for (int64_t j0 = 0; j0 < shape.n; j0 += B::kNc) {
    const int64_t nc = std::min(B::kNc, shape.n - j0);
    for (int64_t k0 = 0; k0 < shape.k; k0 += B::kKc) {
      const int64_t kc = std::min(B::kKc, shape.k - k0);
      pack_b(op_b, k0, kc, j0, nc, packed_b);
      for (int64_t i0 = 0; i0 < shape.m; i0 += B::kMc) {
        const int64_t mc = std::min(B::kMc, shape.m - i0);
        pack_a(op_a, i0, mc, k0, kc, packed_a);
        for (int64_t jr = 0; jr < nc; jr += B::kNr) {
          const T* pb = packed_b + (jr / B::kNr) * kc * B::kNr;
          for (int64_t ir = 0; ir < mc; ir += B::kMr) {
            const T* pa = packed_a + (ir / B::kMr) * kc * B::kMr;
            micro_kernel<T>(kc, pa, pb, alpha, c + (i0 + ir) * ldc + j0 + jr, ldc,
                            std::min(B::kMr, mc - ir), std::min(B::kNr, nc - jr));
          }
        }
      }
    }
  }
}

}  // namespace

int64_t gemm_workspace_elements(const GemmShape& shape) {
  // Float and double panels are sized alike in elements; take the larger.
  const auto [fb, fa] = panel_elements<float>(shape);
  const auto [db, da] = panel_elements<double>(shape);
  return std::max(fb + fa, db + da);
}

void gemm_f32(const GemmShape& shape, bool trans_a, bool trans_b, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
              float* workspace) {
  gemm<float>(shape, trans_a, trans_b, alpha, a, lda, b, ldb, beta, c, ldc, workspace);
}

void gemm_f64(const GemmShape& shape, bool trans_a, bool trans_b, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc,
              double* workspace) {
  gemm<double>(shape, trans_a, trans_b, alpha, a, lda, b, ldb, beta, c, ldc, workspace);
}

}  // namespace inferlab::kernels::reference
