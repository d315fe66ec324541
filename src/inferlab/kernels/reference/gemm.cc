// Gemm: Y = alpha * op(A) * op(B) + beta * C, with C optional (opset 11+) and
// broadcast unidirectionally to M x N. Float types run on the shared blocked
// GEMM; integer types on a plain loop.
#include <vector>

#include "inferlab/kernels/reference/gemm_f32.h"
#include "inferlab/kernels/reference/matmul_util.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

struct GemmProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  bool trans_a = false;
  bool trans_b = false;
};

GemmProblem gemm_problem(const NodeInfo& node, const Shape& a, const Shape& b, const Shape* c) {
  if (a.size() != 2 || b.size() != 2) {
    node.fail(ErrorCode::kInvalidArgument, "A {} and B {} must both be 2-D", shape_to_string(a),
              shape_to_string(b));
  }
  GemmProblem p;
  p.trans_a = node.attr_int("transA", 0) != 0;
  p.trans_b = node.attr_int("transB", 0) != 0;
  p.m = p.trans_a ? a[1] : a[0];
  p.k = p.trans_a ? a[0] : a[1];
  const int64_t kb = p.trans_b ? b[1] : b[0];
  p.n = p.trans_b ? b[0] : b[1];
  if (kb != p.k) {
    node.fail(ErrorCode::kInvalidArgument,
              "inner dims differ: op(A) is {} x {} but op(B) is {} x {} (A {}, B {}, transA {}, "
              "transB {})",
              p.m, p.k, kb, p.n, shape_to_string(a), shape_to_string(b), int(p.trans_a),
              int(p.trans_b));
  }
  if (c != nullptr) {
    const Shape target{p.m, p.n};
    bool ok = c->size() <= 2;
    for (size_t i = 0; ok && i < c->size(); ++i) {
      const int64_t dim = (*c)[i];
      ok = dim == 1 || dim == target[2 - c->size() + i];
    }
    if (!ok) {
      node.fail(ErrorCode::kInvalidArgument, "C {} does not broadcast to the output [{}, {}]",
                shape_to_string(*c), p.m, p.n);
    }
  }
  return p;
}

// y[i][j] = beta * C broadcast to M x N.
template <typename T>
void fill_with_c(const GemmProblem& p, const Tensor& c, double beta, T* y) {
  const Shape& shape = c.shape();
  const int64_t rows = shape.size() == 2 ? shape[0] : 1;
  const int64_t cols = shape.empty() ? 1 : shape.back();
  const T* src = c.data<T>();
  for (int64_t i = 0; i < p.m; ++i) {
    const T* row = src + (rows == 1 ? 0 : i) * cols;
    for (int64_t j = 0; j < p.n; ++j) {
      y[i * p.n + j] = static_cast<T>(beta * static_cast<double>(row[cols == 1 ? 0 : j]));
    }
  }
}

template <typename T>
void run_gemm(const NodeInfo& node, const GemmProblem& p, const Tensor& a, const Tensor& b,
              const Tensor* c, T* y, T* workspace) {
  const double alpha = node.attr_float("alpha", 1.0f);
  const double beta = node.attr_float("beta", 1.0f);
  const int64_t lda = a.dim(1);
  const int64_t ldb = b.dim(1);
  if (c != nullptr) {
    fill_with_c<T>(p, *c, beta, y);
  } else {
    std::fill(y, y + p.m * p.n, T(0));
  }
  if constexpr (std::is_floating_point_v<T>) {
    gemm_blocked(GemmShape{p.m, p.n, p.k}, p.trans_a, p.trans_b, static_cast<T>(alpha), a.data<T>(),
                 lda, b.data<T>(), ldb, T(1), y, p.n, workspace);
  } else {
    // Integers: materialize op(A) and op(B) row-major, multiply, then scale.
    std::vector<T> a_rows(static_cast<size_t>(p.m * p.k));
    std::vector<T> b_rows(static_cast<size_t>(p.k * p.n));
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t q = 0; q < p.k; ++q)
        a_rows[i * p.k + q] = p.trans_a ? a.data<T>()[q * lda + i] : a.data<T>()[i * lda + q];
    for (int64_t q = 0; q < p.k; ++q)
      for (int64_t j = 0; j < p.n; ++j)
        b_rows[q * p.n + j] = p.trans_b ? b.data<T>()[j * ldb + q] : b.data<T>()[q * ldb + j];
    std::vector<T> product(static_cast<size_t>(p.m * p.n));
    integer_matmul<T>(p.m, p.n, p.k, a_rows.data(), p.k, b_rows.data(), p.n, product.data(), p.n);
    for (int64_t i = 0; i < p.m * p.n; ++i) {
      y[i] = alpha == 1.0 ? static_cast<T>(y[i] + product[i])
                          : static_cast<T>(y[i] + alpha * static_cast<double>(product[i]));
    }
  }
}

void check_dtypes(const NodeInfo& node, DataType a, DataType b, const DataType* c) {
  if (!is_matmul_dtype(a)) {
    node.fail(ErrorCode::kUnsupported, "element type {} is not supported", dtype_name(a));
  }
  if (b != a || (c != nullptr && *c != a)) {
    node.fail(ErrorCode::kInvalidArgument, "A, B and C must have the same type (A is {}, B is {})",
              dtype_name(a), dtype_name(b));
  }
}

void infer_gemm(InferContext& ctx) {
  const bool has_c = ctx.has_input(2);
  check_dtypes(ctx.node(), ctx.input(0).dtype, ctx.input(1).dtype,
               has_c ? &ctx.input(2).dtype : nullptr);
  const GemmProblem p = gemm_problem(ctx.node(), ctx.input(0).shape, ctx.input(1).shape,
                                     has_c ? &ctx.input(2).shape : nullptr);
  ctx.set_output(0, ctx.input(0).dtype, {p.m, p.n});
}

void compute_gemm(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  const Tensor* c = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const DataType c_dtype = c ? c->dtype() : a.dtype();
  check_dtypes(ctx.node(), a.dtype(), b.dtype(), &c_dtype);
  const GemmProblem p = gemm_problem(ctx.node(), a.shape(), b.shape(), c ? &c->shape() : nullptr);
  Tensor& y = ctx.output(0, a.dtype(), {p.m, p.n});
  visit_dtype(a.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>) {
      const int64_t workspace = gemm_workspace_elements(GemmShape{p.m, p.n, p.k});
      run_gemm<T>(ctx.node(), p, a, b, c, y.data<T>(),
                  ctx.scratch<T>(static_cast<size_t>(workspace)));
    }
  });
}

}  // namespace

OpKernel gemm_kernel() { return OpKernel{"Gemm", 7, 18, infer_gemm, compute_gemm}; }

}  // namespace inferlab::kernels::reference
