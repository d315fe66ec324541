// The one dense matrix-multiply routine behind Conv, ConvTranspose, Gemm and
// MatMul: C = alpha * op(A) * op(B) + beta * C on row-major matrices with
// leading dimensions. Packed, cache-blocked and register-blocked so that the
// compiler vectorizes the inner kernel without -march flags; single-threaded.
#pragma once

#include <cstdint>

namespace inferlab::kernels::reference {

// op(A) is M x K: A is M x K (lda >= K) or, when trans_a, K x M (lda >= M).
// op(B) is K x N: B is K x N (ldb >= N) or, when trans_b, N x K (ldb >= K).
// C is M x N (ldc >= N). beta == 0 ignores C's previous contents (NaN included).
struct GemmShape {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
};

// Elements of working memory (packed panels) the routine needs for `shape`.
// Callers pass that much as `workspace` (e.g. from KernelContext::scratch)
// so a steady-state run allocates nothing; null: it allocates its own.
int64_t gemm_workspace_elements(const GemmShape& shape);

void gemm_f32(const GemmShape& shape, bool trans_a, bool trans_b, float alpha, const float* a,
              int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
              float* workspace = nullptr);

// The same routine in double precision (Conv/Gemm/MatMul on float64).
void gemm_f64(const GemmShape& shape, bool trans_a, bool trans_b, double alpha, const double* a,
              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc,
              double* workspace = nullptr);

// Overloads for code templated on the element type.
inline void gemm_blocked(const GemmShape& shape, bool trans_a, bool trans_b, float alpha,
                         const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                         float* c, int64_t ldc, float* workspace = nullptr) {
  gemm_f32(shape, trans_a, trans_b, alpha, a, lda, b, ldb, beta, c, ldc, workspace);
}
inline void gemm_blocked(const GemmShape& shape, bool trans_a, bool trans_b, double alpha,
                         const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                         double* c, int64_t ldc, double* workspace = nullptr) {
  gemm_f64(shape, trans_a, trans_b, alpha, a, lda, b, ldb, beta, c, ldc, workspace);
}

}  // namespace inferlab::kernels::reference
