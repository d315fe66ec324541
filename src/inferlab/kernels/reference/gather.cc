// Gather, GatherElements and GatherND: read elements at indices taken from
// data. Every index is range-checked (negative ones count from the end) and
// an out-of-range index is an Error naming the node, never a wild read.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

void require_index_type(const NodeInfo& node, DataType dtype) {
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    node.fail(ErrorCode::kInvalidModel, "indices must be int32 or int64, got {}",
              dtype_name(dtype));
  }
}

Shape gather_shape(const NodeInfo& node, const Shape& data, const Shape& indices, int64_t& axis) {
  if (data.empty()) node.fail(ErrorCode::kInvalidArgument, "data must have rank >= 1");
  axis = node_axis(node, node.attr_int("axis", 0), static_cast<int64_t>(data.size()));
  Shape output(data.begin(), data.begin() + axis);
  output.insert(output.end(), indices.begin(), indices.end());
  output.insert(output.end(), data.begin() + axis + 1, data.end());
  return output;
}

void gather_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  require_index_type(node, indices_tensor.dtype());
  int64_t axis = 0;
  const Shape output_shape = gather_shape(node, data.shape(), indices_tensor.shape(), axis);
  const auto a = static_cast<size_t>(axis);
  const int64_t axis_size = data.shape()[a];
  const int64_t outer = dims_product(data.shape(), 0, a);
  const int64_t inner = dims_product(data.shape(), a + 1, data.shape().size());
  // Range-checked rows, in scratch (no per-run allocation).
  const auto count = static_cast<size_t>(indices_tensor.numel());
  int64_t* rows = ctx.scratch<int64_t>(count);
  for (size_t j = 0; j < count; ++j) {
    const int64_t index = indices_tensor.dtype() == DataType::kInt32
                              ? indices_tensor.data<int32_t>()[j]
                              : indices_tensor.data<int64_t>()[j];
    rows[j] = checked_index(node, index, axis_size, axis);
  }
  Tensor& out = ctx.output(0, data.dtype(), output_shape);
  if (out.numel() == 0) return;
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = data.data<T>();
    T* dst = out.data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t j = 0; j < count; ++j) {
        const T* from = in + (o * axis_size + rows[j]) * inner;
        dst = std::copy(from, from + inner, dst);
      }
    }
  });
}

void gather_elements_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  require_index_type(node, indices_tensor.dtype());
  const Shape& shape = indices_tensor.shape();
  const int64_t rank = data.rank();
  if (static_cast<int64_t>(shape.size()) != rank || rank == 0) {
    node.fail(ErrorCode::kInvalidArgument, "indices {} must have the rank of data {}",
              shape_to_string(shape), shape_to_string(data.shape()));
  }
  const auto axis = static_cast<size_t>(node_axis(node, node.attr_int("axis", 0), rank));
  const std::vector<int64_t> source =
      element_offsets_along_axis(node, data.shape(), shape, indices_tensor.to_int64_vector(), axis);
  Tensor& out = ctx.output(0, data.dtype(), shape);
  if (out.numel() == 0) return;
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = data.data<T>();
    T* dst = out.data<T>();
    for (size_t i = 0; i < source.size(); ++i) dst[i] = in[source[i]];
  });
}

// GatherND geometry: batch dims b, index tuple length k.
struct GatherNdPlan {
  Shape output;
  int64_t batches = 1;       // prod(data[:b])
  int64_t tuples = 1;        // index tuples per batch
  int64_t slice = 1;         // elements per gathered slice, prod(data[b+k:])
  int64_t batch_stride = 1;  // prod(data[b:])
  size_t depth = 0;          // k
  size_t batch_dims = 0;     // b
};

GatherNdPlan gather_nd_plan(const NodeInfo& node, const Shape& data, const Shape& indices) {
  const int64_t b = node.opset() >= 12 ? node.attr_int("batch_dims", 0) : 0;
  const auto r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
  if (r < 1 || q < 1 || b < 0 || b >= std::min(r, q)) {
    node.fail(ErrorCode::kInvalidArgument, "invalid ranks: data {}, indices {}, batch_dims {}",
              shape_to_string(data), shape_to_string(indices), b);
  }
  const int64_t k = indices.back();
  if (k < 1 || k > r - b) {
    node.fail(ErrorCode::kInvalidArgument,
              "index tuples of length {} do not fit data {} with batch_dims {}", k,
              shape_to_string(data), b);
  }
  GatherNdPlan plan;
  plan.depth = static_cast<size_t>(k);
  const auto bb = static_cast<size_t>(b);
  plan.batch_dims = bb;
  for (size_t i = 0; i < bb; ++i) {
    if (indices[i] != data[i]) {
      node.fail(ErrorCode::kInvalidArgument, "batch dims of indices {} and data {} differ",
                shape_to_string(indices), shape_to_string(data));
    }
  }
  plan.output.assign(indices.begin(), indices.end() - 1);
  plan.output.insert(plan.output.end(), data.begin() + b + k, data.end());
  plan.batches = dims_product(data, 0, bb);
  plan.tuples = dims_product(indices, bb, indices.size() - 1);
  plan.slice = dims_product(data, bb + plan.depth, data.size());
  plan.batch_stride = dims_product(data, bb, data.size());
  return plan;
}

void gather_nd_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  require_index_type(node, indices_tensor.dtype());
  const GatherNdPlan plan = gather_nd_plan(node, data.shape(), indices_tensor.shape());
  const auto indices = indices_tensor.to_int64_vector();
  const size_t b = plan.batch_dims;
  const auto strides = shape_strides(data.shape());
  std::vector<int64_t> source(static_cast<size_t>(plan.batches * plan.tuples));
  for (size_t t = 0; t < source.size(); ++t) {
    int64_t offset = static_cast<int64_t>(t) / plan.tuples * plan.batch_stride;
    for (size_t j = 0; j < plan.depth; ++j) {
      const size_t d = b + j;
      offset += checked_index(node, indices[t * plan.depth + j], data.shape()[d],
                              static_cast<int64_t>(d)) *
                strides[d];
    }
    source[t] = offset;
  }
  Tensor& out = ctx.output(0, data.dtype(), plan.output);
  if (out.numel() == 0) return;
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = data.data<T>();
    T* dst = out.data<T>();
    for (int64_t offset : source) dst = std::copy(in + offset, in + offset + plan.slice, dst);
  });
}

}  // namespace

OpKernel gather_kernel() {
  OpKernel kernel;
  kernel.op_type = "Gather";
  kernel.infer = [](InferContext& ctx) {
    require_index_type(ctx.node(), ctx.input(1).dtype);
    int64_t axis = 0;
    ctx.set_output(0, ctx.input(0).dtype,
                   gather_shape(ctx.node(), ctx.input(0).shape, ctx.input(1).shape, axis));
  };
  kernel.compute = gather_compute;
  return kernel;
}

OpKernel gather_elements_kernel() {
  OpKernel kernel;
  kernel.op_type = "GatherElements";
  kernel.min_opset = 11;
  kernel.infer = [](InferContext& ctx) {
    require_index_type(ctx.node(), ctx.input(1).dtype);
    ctx.set_output(0, ctx.input(0).dtype, ctx.input(1).shape);
  };
  kernel.compute = gather_elements_compute;
  return kernel;
}

OpKernel gather_nd_kernel() {
  OpKernel kernel;
  kernel.op_type = "GatherND";
  kernel.min_opset = 11;
  kernel.infer = [](InferContext& ctx) {
    require_index_type(ctx.node(), ctx.input(1).dtype);
    ctx.set_output(0, ctx.input(0).dtype,
                   gather_nd_plan(ctx.node(), ctx.input(0).shape, ctx.input(1).shape).output);
  };
  kernel.compute = gather_nd_compute;
  return kernel;
}

}  // namespace inferlab::kernels::reference
