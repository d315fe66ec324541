// Expand and Tile: both read each source element many times, so both are a
// strided copy — Expand with stride 0 on broadcast dims, Tile as a copy into
// the view [r0, d0, r1, d1, ...] of the output with stride 0 on each r.
#include "inferlab/kernels/reference/node_errors.h"
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

Shape expand_shape(const NodeInfo& node, const Shape& input, const Tensor& shape_tensor) {
  const Shape requested = int64_values(node, shape_tensor, "shape");
  for (int64_t dim : requested) {
    if (dim < 0)
      node.fail(ErrorCode::kInvalidArgument, "shape {} has a negative dim",
                shape_to_string(requested));
  }
  return naming_node(node, [&] { return broadcast_shapes(input, requested, "shape"); });
}

void expand_compute(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Shape output_shape = expand_shape(ctx.node(), data.shape(), ctx.input(1));
  const auto in_strides = shape_strides(data.shape());
  const size_t offset = output_shape.size() - data.shape().size();
  std::vector<int64_t> strides(output_shape.size(), 0);
  for (size_t i = 0; i < data.shape().size(); ++i) {
    strides[offset + i] = data.shape()[i] == 1 ? 0 : in_strides[i];
  }
  Tensor& out = ctx.output(0, data.dtype(), output_shape);
  strided_copy_tensor(data, 0, strides, out, ctx.node());
}

Shape tile_shape(const NodeInfo& node, const Shape& input, const Tensor& repeats_tensor) {
  const auto repeats = int64_values(node, repeats_tensor, "repeats");
  if (repeats.size() != input.size()) {
    node.fail(ErrorCode::kInvalidArgument, "repeats has {} entries for an input of rank {}",
              repeats.size(), input.size());
  }
  Shape output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (repeats[i] < 0) node.fail(ErrorCode::kInvalidArgument, "repeat {} is negative", repeats[i]);
    output[i] = naming_node(node, [&] { return checked_mul(input[i], repeats[i], "repeats"); });
  }
  return output;
}

void tile_compute(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Shape output_shape = tile_shape(ctx.node(), data.shape(), ctx.input(1));
  const auto in_strides = shape_strides(data.shape());
  Shape view;
  std::vector<int64_t> strides;
  for (size_t i = 0; i < data.shape().size(); ++i) {
    const int64_t dim = data.shape()[i];
    view.push_back(dim == 0 ? 0 : output_shape[i] / dim);
    view.push_back(dim);
    strides.push_back(0);
    strides.push_back(in_strides[i]);
  }
  Tensor& out = ctx.output(0, data.dtype(), output_shape);
  Tensor out_view = out.reshaped(view);
  strided_copy_tensor(data, 0, strides, out_view, ctx.node());
}

using ShapeRule = Shape (*)(const NodeInfo&, const Shape&, const Tensor&);

OpKernel make_kernel(const char* op_type, ShapeRule rule, ComputeFunction compute) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [rule](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    if (ctx.input(1).value == nullptr) return ctx.set_output_dynamic(0, data.dtype);
    ctx.set_output(0, data.dtype, rule(ctx.node(), data.shape, *ctx.input(1).value));
  };
  kernel.compute = std::move(compute);
  return kernel;
}

}  // namespace

OpKernel expand_kernel() {
  OpKernel kernel = make_kernel("Expand", expand_shape, expand_compute);
  kernel.min_opset = 8;
  return kernel;
}

OpKernel tile_kernel() { return make_kernel("Tile", tile_shape, tile_compute); }

}  // namespace inferlab::kernels::reference
