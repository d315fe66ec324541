// MatMul with numpy semantics: 1-D operands are promoted (and the added dim
// removed from the result), leading batch dims broadcast. Float types run on
// the shared blocked GEMM, folding A's batch into M when B has no batch.
#include <vector>

#include <algorithm>

#include "inferlab/kernels/reference/gemm_f32.h"
#include "inferlab/kernels/reference/matmul_util.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {
namespace {

struct MatMulProblem {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  Shape a_batch;  // A's leading dims (after promotion)
  Shape b_batch;
  Shape batch;  // broadcast of the two
  Shape output_shape;
};

MatMulProblem matmul_problem(const NodeInfo& node, const Shape& a_in, const Shape& b_in) {
  if (a_in.empty() || b_in.empty()) {
    node.fail(ErrorCode::kInvalidArgument, "operands must have rank >= 1, got A {} and B {}",
              shape_to_string(a_in), shape_to_string(b_in));
  }
  Shape a = a_in;
  Shape b = b_in;
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  MatMulProblem p;
  p.m = a[a.size() - 2];
  p.k = a.back();
  p.n = b.back();
  if (b[b.size() - 2] != p.k) {
    node.fail(ErrorCode::kInvalidArgument, "A {} has {} columns but B {} has {} rows",
              shape_to_string(a_in), p.k, shape_to_string(b_in), b[b.size() - 2]);
  }
  p.a_batch.assign(a.begin(), a.end() - 2);
  p.b_batch.assign(b.begin(), b.end() - 2);
  p.batch = naming_node(node, [&] { return broadcast_shapes(p.a_batch, p.b_batch, "batch dims"); });
  p.output_shape = p.batch;
  if (a_in.size() > 1) p.output_shape.push_back(p.m);
  if (b_in.size() > 1) p.output_shape.push_back(p.n);
  return p;
}

// The flat index into `own` of flat index `flat` of the broadcast batch.
int64_t batch_source(const Shape& batch, const Shape& own, const Shape& own_strides, int64_t flat) {
  const size_t offset = batch.size() - own.size();
  int64_t source = 0;
  for (size_t d = batch.size(); d-- > offset;) {
    const int64_t coord = flat % batch[d];
    flat /= batch[d];
    if (own[d - offset] != 1) source += coord * own_strides[d - offset];
  }
  return source;
}

template <typename T>
void multiply(const MatMulProblem& p, const T* a, int64_t lda, const T* b, T* c, int64_t m,
              T* workspace) {
  if constexpr (std::is_floating_point_v<T>) {
    gemm_blocked(GemmShape{m, p.n, p.k}, false, false, T(1), a, lda, b, p.n, T(0), c, p.n,
                 workspace);
  } else {
    integer_matmul<T>(m, p.n, p.k, a, lda, b, p.n, c, p.n);
  }
}

template <typename T>
void run_matmul(const MatMulProblem& p, const T* a, const T* b, T* y, T* workspace) {
  const int64_t a_matrix = p.m * p.k;
  const int64_t b_matrix = p.k * p.n;
  const int64_t y_matrix = p.m * p.n;
  const int64_t batch = shape_numel(p.batch);
  if (shape_numel(p.b_batch) == 1 && shape_numel(p.a_batch) == batch) {
    multiply<T>(p, a, p.k, b, y, batch * p.m, workspace);  // B shared: one tall GEMM
    return;
  }
  const Shape a_strides = shape_strides(p.a_batch);
  const Shape b_strides = shape_strides(p.b_batch);
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t a_source = batch_source(p.batch, p.a_batch, a_strides, i);
    const int64_t b_source = batch_source(p.batch, p.b_batch, b_strides, i);
    multiply<T>(p, a + a_source * a_matrix, p.k, b + b_source * b_matrix, y + i * y_matrix, p.m,
                workspace);
  }
}

void check_dtypes(const NodeInfo& node, DataType a, DataType b) {
  if (!is_matmul_dtype(a)) {
    node.fail(ErrorCode::kUnsupported, "element type {} is not supported", dtype_name(a));
  }
  if (a != b) {
    node.fail(ErrorCode::kInvalidArgument, "A and B must have the same type (A is {}, B is {})",
              dtype_name(a), dtype_name(b));
  }
}

void infer_matmul(InferContext& ctx) {
  check_dtypes(ctx.node(), ctx.input(0).dtype, ctx.input(1).dtype);
  const MatMulProblem p = matmul_problem(ctx.node(), ctx.input(0).shape, ctx.input(1).shape);
  ctx.set_output(0, ctx.input(0).dtype, p.output_shape);
}

void compute_matmul(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  check_dtypes(ctx.node(), a.dtype(), b.dtype());
  const MatMulProblem p = matmul_problem(ctx.node(), a.shape(), b.shape());
  Tensor& y = ctx.output(0, a.dtype(), p.output_shape);
  visit_dtype(a.dtype(), ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>) {
      const int64_t batch = shape_numel(p.batch);
      const int64_t workspace = std::max(gemm_workspace_elements(GemmShape{batch * p.m, p.n, p.k}),
                                         gemm_workspace_elements(GemmShape{p.m, p.n, p.k}));
      run_matmul<T>(p, a.data<T>(), b.data<T>(), y.data<T>(),
                    ctx.scratch<T>(static_cast<size_t>(workspace)));
    }
  });
}

}  // namespace

OpKernel matmul_kernel() { return OpKernel{"MatMul", 7, 18, infer_matmul, compute_matmul}; }

}  // namespace inferlab::kernels::reference
