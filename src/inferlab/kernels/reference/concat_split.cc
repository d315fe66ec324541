// Concat and Split. Both view the tensor as [outer, axis, inner] and move
// blocks of (axis extent x inner) contiguous elements per outer index.
#include <numeric>

#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

// Copies `rows` blocks: dst[r * dst_row + dst_offset + k] = src[r * src_row + src_offset + k].
template <typename T>
void copy_rows(const T* src, int64_t src_row, int64_t src_offset, T* dst, int64_t dst_row,
               int64_t dst_offset, int64_t rows, int64_t block) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* from = src + r * src_row + src_offset;
    std::copy(from, from + block, dst + r * dst_row + dst_offset);
  }
}

void copy_rows_tensor(const NodeInfo& node, const Tensor& src, int64_t src_row, int64_t src_offset,
                      Tensor& dst, int64_t dst_row, int64_t dst_offset, int64_t rows,
                      int64_t block) {
  if (rows == 0 || block == 0) return;
  visit_any_dtype(src.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    copy_rows<T>(src.data<T>(), src_row, src_offset, dst.data<T>(), dst_row, dst_offset, rows,
                 block);
  });
}

Shape concat_shape(const NodeInfo& node, const std::vector<Shape>& shapes, int64_t& axis) {
  if (shapes.empty()) node.fail(ErrorCode::kInvalidModel, "needs at least one input");
  const Shape& first = shapes[0];
  const int64_t rank = static_cast<int64_t>(first.size());
  axis = node_axis(node, node.attr_int("axis"), rank);
  Shape output = first;
  output[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Shape& shape = shapes[i];
    bool compatible = shape.size() == first.size();
    for (size_t d = 0; compatible && d < shape.size(); ++d) {
      compatible = static_cast<int64_t>(d) == axis || shape[d] == first[d];
    }
    if (!compatible) {
      node.fail(ErrorCode::kInvalidArgument,
                "input {} has shape {}, incompatible with {} on axis {}", i, shape_to_string(shape),
                shape_to_string(first), axis);
    }
    output[static_cast<size_t>(axis)] += shape[static_cast<size_t>(axis)];
  }
  return output;
}

OpKernel make_concat() {
  OpKernel kernel;
  kernel.op_type = "Concat";
  kernel.infer = [](InferContext& ctx) {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape);
    int64_t axis = 0;
    ctx.set_output(0, ctx.input(0).dtype, concat_shape(ctx.node(), shapes, axis));
  };
  kernel.compute = [](KernelContext& ctx) {
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.input(i).dtype() != ctx.input(0).dtype()) {
        ctx.node().fail(ErrorCode::kInvalidArgument, "input {} is {}, input 0 is {}", i,
                        dtype_name(ctx.input(i).dtype()), dtype_name(ctx.input(0).dtype()));
      }
      shapes.push_back(ctx.input(i).shape());
    }
    int64_t axis = 0;
    const Shape output_shape = concat_shape(ctx.node(), shapes, axis);
    Tensor& out = ctx.output(0, ctx.input(0).dtype(), output_shape);
    const auto a = static_cast<size_t>(axis);
    const int64_t outer = dims_product(output_shape, 0, a);
    const int64_t inner = dims_product(output_shape, a + 1, output_shape.size());
    const int64_t out_row = output_shape[a] * inner;
    int64_t offset = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const int64_t block = shapes[i][a] * inner;
      copy_rows_tensor(ctx.node(), ctx.input(i), block, 0, out, out_row, offset, outer, block);
      offset += block;
    }
  };
  return kernel;
}

// The sizes of Split's outputs along the axis; `split` empty = not given.
std::vector<int64_t> split_sizes(const NodeInfo& node, int64_t dim, size_t num_outputs,
                                 std::vector<int64_t> split) {
  if (!split.empty()) {
    int64_t total = 0;
    for (int64_t size : split) {
      if (size < 0) node.fail(ErrorCode::kInvalidModel, "split size {} is negative", size);
      total += size;
    }
    if (split.size() != num_outputs || total != dim) {
      node.fail(ErrorCode::kInvalidArgument,
                "split sizes {} do not divide an axis of size {} into {} outputs",
                shape_to_string(split), dim, num_outputs);
    }
    return split;
  }
  if (num_outputs == 0) node.fail(ErrorCode::kInvalidModel, "has no outputs");
  const auto parts = static_cast<int64_t>(num_outputs);
  if (node.opset() >= 18 && node.has_attr("num_outputs")) {
    const int64_t chunk = (dim + parts - 1) / parts;
    if (chunk * (parts - 1) > dim) {
      node.fail(ErrorCode::kInvalidArgument, "cannot split an axis of size {} into {} outputs", dim,
                parts);
    }
    std::vector<int64_t> sizes(num_outputs, chunk);
    sizes.back() = dim - chunk * (parts - 1);
    return sizes;
  }
  if (dim % parts != 0) {
    node.fail(ErrorCode::kInvalidArgument, "axis of size {} does not split evenly into {} outputs",
              dim, parts);
  }
  return std::vector<int64_t>(num_outputs, dim / parts);
}

// Split sizes from the attribute (opset < 13) or input 1; false when that
// input's value is not known.
bool split_request(const NodeInfo& node, const Tensor* input, bool has_input,
                   std::vector<int64_t>& split) {
  if (node.opset() < 13) {
    split = node.attr_ints("split", {});
    return true;
  }
  if (!has_input) return true;
  if (input == nullptr) return false;
  split = int64_values(node, *input, "split");
  return true;
}

OpKernel make_split() {
  OpKernel kernel;
  kernel.op_type = "Split";
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    std::vector<int64_t> split;
    const bool has_split = ctx.has_input(1);
    if (!split_request(ctx.node(), has_split ? ctx.input(1).value : nullptr, has_split, split)) {
      for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_dynamic(i, data.dtype);
      return;
    }
    const int64_t axis = node_axis(ctx.node(), ctx.node().attr_int("axis", 0),
                                   static_cast<int64_t>(data.shape.size()));
    const auto sizes =
        split_sizes(ctx.node(), data.shape[static_cast<size_t>(axis)], ctx.num_outputs(), split);
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape shape = data.shape;
      shape[static_cast<size_t>(axis)] = sizes[i];
      ctx.set_output(i, data.dtype, shape);
    }
  };
  kernel.compute = [](KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    std::vector<int64_t> split;
    const bool has_split = ctx.has_input(1);
    split_request(ctx.node(), has_split ? &ctx.input(1) : nullptr, has_split, split);
    const auto a =
        static_cast<size_t>(node_axis(ctx.node(), ctx.node().attr_int("axis", 0), data.rank()));
    const auto sizes = split_sizes(ctx.node(), data.shape()[a], ctx.num_outputs(), split);
    const int64_t outer = dims_product(data.shape(), 0, a);
    const int64_t inner = dims_product(data.shape(), a + 1, data.shape().size());
    const int64_t in_row = data.shape()[a] * inner;
    int64_t offset = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      Shape shape = data.shape();
      shape[a] = sizes[i];
      Tensor& out = ctx.output(i, data.dtype(), shape);
      const int64_t block = sizes[i] * inner;
      copy_rows_tensor(ctx.node(), data, in_row, offset, out, block, 0, outer, block);
      offset += block;
    }
  };
  return kernel;
}

}  // namespace

OpKernel concat_kernel() { return make_concat(); }
OpKernel split_kernel() { return make_split(); }

}  // namespace inferlab::kernels::reference
