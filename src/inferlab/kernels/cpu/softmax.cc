// Fast float32 Softmax (LogSoftmax stays on the reference kernel). The axis
// rule is the reference's: from opset 13 the normalization runs along `axis`
// alone; before, over the input flattened to 2-D at `axis`. Attribute errors
// (an axis out of range) are left to the reference kernel.
#include "inferlab/kernels/cpu/fast_kernels.h"

namespace inferlab::kernels::cpu {
namespace {

struct SoftmaxView {
  int64_t outer = 1;
  int64_t axis = 1;
  int64_t inner = 1;
};

bool softmax_view(const NodeInfo& node, const Shape& shape, SoftmaxView& view) {
  const auto rank = static_cast<int64_t>(shape.size());
  const bool modern = node.opset() >= 13;
  int64_t axis = node.attr_int("axis", modern ? -1 : 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank || (modern && axis == rank)) return false;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = shape[static_cast<size_t>(d)];
    if (d < axis) {
      view.outer *= size;
    } else if (d == axis || !modern) {
      view.axis *= size;
    } else {
      view.inner *= size;
    }
  }
  return true;
}

bool run_softmax(KernelContext& ctx, const KernelTable& table) {
  const Tensor& x = ctx.input(0);
  SoftmaxView view;
  if (x.dtype() != DataType::kFloat32 || !softmax_view(ctx.node(), x.shape(), view)) return false;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  float* scratch =
      view.inner > 1 ? ctx.scratch<float>(static_cast<size_t>(2 * view.inner)) : nullptr;
  table.softmax_f32(x.data<float>(), y.data<float>(), view.outer, view.axis, view.inner, scratch);
  return true;
}

}  // namespace

void add_softmax_kernel(OpRegistry& registry, const KernelTable& table) {
  replace_compute(registry, "", "Softmax",
                  [&table](KernelContext& ctx) { return run_softmax(ctx, table); });
}

}  // namespace inferlab::kernels::cpu
