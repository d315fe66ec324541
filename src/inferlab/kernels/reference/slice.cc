// Slice: starts/ends/axes attributes before opset 10, inputs (with steps)
// from 10. Each axis clamps its start and end the way ONNX specifies
// (negative steps included), then the slice is one strided copy.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

// Shapes (small vectors): reading them per run allocates nothing.
struct SliceArgs {
  Shape starts, ends, axes, steps;
};

struct SlicePlan {
  Shape output;
  int64_t base = 0;   // source offset of the first element
  Shape src_strides;  // per output dim
};

SlicePlan plan_slice(const NodeInfo& node, const Shape& input, SliceArgs args) {
  const int64_t rank = static_cast<int64_t>(input.size());
  const size_t count = args.starts.size();
  if (args.ends.size() != count) {
    node.fail(ErrorCode::kInvalidModel, "starts has {} entries but ends has {}", count,
              args.ends.size());
  }
  if (args.axes.empty()) {
    for (size_t i = 0; i < count; ++i) args.axes.push_back(static_cast<int64_t>(i));
  }
  if (args.steps.empty()) args.steps.assign(count, 1);
  if (args.axes.size() != count || args.steps.size() != count) {
    node.fail(ErrorCode::kInvalidModel, "starts, ends, axes and steps differ in length");
  }
  const auto strides = shape_strides(input);
  SlicePlan plan{input, 0, strides};
  Shape seen(input.size(), 0);
  for (size_t i = 0; i < count; ++i) {
    const auto axis = static_cast<size_t>(node_axis(node, args.axes[i], rank));
    if (seen[axis] != 0) node.fail(ErrorCode::kInvalidModel, "axis {} is repeated", args.axes[i]);
    seen[axis] = 1;
    const int64_t dim = input[axis], step = args.steps[i];
    if (step == 0) node.fail(ErrorCode::kInvalidModel, "step for axis {} is 0", args.axes[i]);
    int64_t start = args.starts[i], end = args.ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t length = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      length = end > start ? (end - start - 1) / step + 1 : 0;
    } else if (dim > 0) {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      length = start > end ? (start - end - 1) / -step + 1 : 0;
    }
    plan.output[axis] = length;
    if (length > 0) plan.base += start * strides[axis];
    plan.src_strides[axis] = strides[axis] * step;
  }
  return plan;
}

// The slice arguments, or false when an input among them is not known.
template <typename ValueOf>
bool slice_args(const NodeInfo& node, size_t num_inputs, ValueOf value_of, SliceArgs& args) {
  if (node.opset() < 10) {
    args.starts = node.attr_ints("starts");
    args.ends = node.attr_ints("ends");
    args.axes = node.attr_ints("axes", {});
    return true;
  }
  Shape* targets[] = {&args.starts, &args.ends, &args.axes, &args.steps};
  const char* names[] = {"starts", "ends", "axes", "steps"};
  for (size_t i = 1; i < 5 && i < num_inputs; ++i) {
    bool present = true;
    const Tensor* tensor = value_of(i, present);
    if (!present) continue;
    if (tensor == nullptr) return false;
    *targets[i - 1] = int64_values(node, *tensor, names[i - 1]);
  }
  return true;
}

}  // namespace

OpKernel slice_kernel() {
  OpKernel kernel;
  kernel.op_type = "Slice";
  kernel.infer = [](InferContext& ctx) {
    SliceArgs args;
    const bool known = slice_args(
        ctx.node(), ctx.num_inputs(),
        [&](size_t i, bool& present) {
          present = ctx.has_input(i);
          return present ? ctx.input(i).value : nullptr;
        },
        args);
    const ValueFacts& data = ctx.input(0);
    if (!known) return ctx.set_output_dynamic(0, data.dtype);
    ctx.set_output(0, data.dtype, plan_slice(ctx.node(), data.shape, args).output);
  };
  kernel.compute = [](KernelContext& ctx) {
    SliceArgs args;
    slice_args(
        ctx.node(), ctx.num_inputs(),
        [&](size_t i, bool& present) {
          present = ctx.has_input(i);
          return present ? &ctx.input(i) : nullptr;
        },
        args);
    const Tensor& data = ctx.input(0);
    const SlicePlan plan = plan_slice(ctx.node(), data.shape(), args);
    Tensor& out = ctx.output(0, data.dtype(), plan.output);
    strided_copy_tensor(data, plan.base, plan.src_strides, out, ctx.node());
  };
  return kernel;
}

}  // namespace inferlab::kernels::reference
