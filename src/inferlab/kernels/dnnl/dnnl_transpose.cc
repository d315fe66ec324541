// Transpose of float tensors on a oneDNN reorder, in planned runs: the
// output is described as the input's dims with permuted strides, so one
// reorder primitive (vectorized, over the OpenMP team) does the copy. The
// layout pass's conversions between channels-first and channels-last are
// Transposes, which makes this the path every layout boundary takes.
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

struct TransposeState : KernelState {
  DnnlCall reorder;
  Shape output_shape;
};

std::unique_ptr<KernelState> prepare_transpose(PrepareContext& ctx) {
  const ValueFacts& x = ctx.input(0);
  const size_t rank = x.shape.size();
  if (x.dtype != DataType::kFloat32 || rank == 0 || rank > 6 || shape_numel(x.shape) == 0) {
    return nullptr;
  }
  Shape perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  if (ctx.node().has_attr("perm")) perm = ctx.node().attr_ints("perm");
  const Shape& y = ctx.output(0).shape;
  // Output element (j_0, ...) is input element d with d[perm[i]] = j_i, so
  // input dim perm[i] advances by the output's row-major stride of dim i.
  dnnl::memory::dims strides(rank);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    const int64_t axis = perm[i] < 0 ? perm[i] + static_cast<int64_t>(rank) : perm[i];
    strides[static_cast<size_t>(axis)] = stride;
    stride *= y[i];
  }
  const dnnl::memory::desc from = plain_desc(x.shape);
  const dnnl::memory::desc to(to_dims(x.shape), dnnl::memory::data_type::f32, strides);
  auto state = std::make_unique<TransposeState>();
  state->reorder = make_reorder(from, to);
  state->output_shape = y;
  if (state->reorder.empty()) return nullptr;  // the identity: the reference copies
  return state;
}

void run_transpose(TransposeState& state, KernelContext& ctx) {
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  state.reorder.bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
  state.reorder.bind(DNNL_ARG_DST, y.raw_data());
  state.reorder.execute(ctx.node());
}

}  // namespace

void add_dnnl_transpose_kernel(OpRegistry& registry) {
  registry.add(
      on_dnnl<TransposeState>(reference::transpose_kernel(), prepare_transpose, run_transpose));
}

}  // namespace inferlab::kernels::dnnl_backend
