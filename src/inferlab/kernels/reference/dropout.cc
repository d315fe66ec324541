// Dropout in inference: the output is the input, and the optional mask is all
// true (bool from opset 10, the input's type before). Opset 12+ takes ratio
// and training_mode as inputs; training with a non-zero ratio draws random
// masks, which InferLab does not implement.
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

DataType mask_dtype(const NodeInfo& node, DataType input) {
  return node.opset() >= 10 ? DataType::kBool : input;
}

// Rejects training with a non-zero ratio when both inputs are known.
void check_not_training(const NodeInfo& node, const Tensor* ratio, const Tensor* training) {
  if (node.opset() < 12 || training == nullptr || training->numel() != 1) return;
  if (training->element_as_double(0) == 0) return;
  const double rate = ratio != nullptr && ratio->numel() == 1 ? ratio->element_as_double(0) : 0.5;
  if (rate != 0) {
    node.fail(ErrorCode::kUnsupported,
              "training_mode = true with ratio {} draws a random mask, which is not supported",
              rate);
  }
}

void infer_dropout(InferContext& ctx) {
  const ValueFacts& x = ctx.input(0);
  const Tensor* ratio = ctx.has_input(1) ? ctx.input(1).value : nullptr;
  const Tensor* training = ctx.has_input(2) ? ctx.input(2).value : nullptr;
  if (ctx.has_input(2) && training != nullptr) check_not_training(ctx.node(), ratio, training);
  ctx.set_output(0, x.dtype, x.shape);
  ctx.set_output(1, mask_dtype(ctx.node(), x.dtype), x.shape);
}

void compute_dropout(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  check_not_training(ctx.node(), ctx.has_input(1) ? &ctx.input(1) : nullptr,
                     ctx.has_input(2) ? &ctx.input(2) : nullptr);
  ctx.set_output(0, x);
  if (ctx.num_outputs() < 2) return;
  const DataType dtype = mask_dtype(ctx.node(), x.dtype());
  Tensor& mask = ctx.output(1, dtype, x.shape());
  visit_dtype(dtype, ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = mask.data<T>();
    for (int64_t i = 0; i < mask.numel(); ++i) out[i] = T(1);
  });
}

}  // namespace

OpKernel dropout_kernel() { return OpKernel{"Dropout", 7, 18, infer_dropout, compute_dropout}; }

}  // namespace inferlab::kernels::reference
