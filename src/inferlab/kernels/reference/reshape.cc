// Reshape, Flatten, Squeeze, Unsqueeze and Identity: operators that change
// only the shape. Their outputs share the input's memory (Tensor::reshaped),
// so they cost nothing at run time; the work is in the shape rules.
#include <set>

#include "inferlab/kernels/reference/node_errors.h"
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

// ONNX Reshape: 0 copies the input dim (or means 0 with allowzero), -1 is
// inferred from the element count.
Shape reshape_target(const NodeInfo& node, const Shape& input, const Shape& request,
                     bool allow_zero) {
  Shape output(request.size());
  int64_t inferred_axis = -1;
  int64_t known = 1;
  bool has_zero = false;
  for (size_t i = 0; i < request.size(); ++i) {
    int64_t dim = request[i];
    if (dim == 0 && !allow_zero) {
      if (i >= input.size()) {
        node.fail(ErrorCode::kInvalidModel, "shape entry {} is 0 but the input has rank {}", i,
                  input.size());
      }
      dim = input[i];
    }
    if (dim == -1) {
      if (inferred_axis >= 0) node.fail(ErrorCode::kInvalidModel, "shape has more than one -1");
      inferred_axis = static_cast<int64_t>(i);
      continue;
    }
    if (dim < -1) node.fail(ErrorCode::kInvalidModel, "shape entry {} is {}", i, dim);
    if (request[i] == 0) has_zero = true;
    output[i] = dim;
    known = naming_node(node, [&] { return checked_mul(known, dim, "shape"); });
  }
  const int64_t count = shape_numel(input);
  if (inferred_axis >= 0) {
    if (allow_zero && has_zero) {
      node.fail(ErrorCode::kInvalidModel, "allowzero=1 shape has both 0 and -1");
    }
    if (known == 0 || count % known != 0) {
      node.fail(ErrorCode::kInvalidArgument, "cannot reshape input {} into {}",
                shape_to_string(input), shape_to_string(request));
    }
    output[static_cast<size_t>(inferred_axis)] = count / known;
  } else if (known != count) {
    node.fail(ErrorCode::kInvalidArgument, "cannot reshape input {} ({} elements) into {}",
              shape_to_string(input), count, shape_to_string(output));
  }
  return output;
}

bool reshape_allows_zero(const NodeInfo& node) {
  return node.opset() >= 14 && node.attr_int("allowzero", 0) != 0;
}

OpKernel make_reshape() {
  OpKernel kernel;
  kernel.op_type = "Reshape";
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    if (ctx.input(1).value == nullptr) return ctx.set_output_dynamic(0, data.dtype);
    const auto request = int64_values(ctx.node(), *ctx.input(1).value, "shape");
    ctx.set_output(
        0, data.dtype,
        reshape_target(ctx.node(), data.shape, request, reshape_allows_zero(ctx.node())));
  };
  kernel.compute = [](KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const auto request = int64_values(ctx.node(), ctx.input(1), "shape");
    ctx.set_output(0, data.reshaped(reshape_target(ctx.node(), data.shape(), request,
                                                   reshape_allows_zero(ctx.node()))));
  };
  return kernel;
}

Shape flatten_shape(const NodeInfo& node, const Shape& input) {
  const int64_t rank = static_cast<int64_t>(input.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank) {
    node.fail(ErrorCode::kInvalidModel, "axis {} is out of range for rank {}", axis, rank);
  }
  if (axis < 0) axis += rank;
  const auto split = static_cast<size_t>(axis);
  return {dims_product(input, 0, split), dims_product(input, split, input.size())};
}

OpKernel make_flatten() {
  OpKernel kernel;
  kernel.op_type = "Flatten";
  kernel.infer = [](InferContext& ctx) {
    ctx.set_output(0, ctx.input(0).dtype, flatten_shape(ctx.node(), ctx.input(0).shape));
  };
  kernel.compute = [](KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    ctx.set_output(0, data.reshaped(flatten_shape(ctx.node(), data.shape())));
  };
  return kernel;
}

// Squeeze/Unsqueeze axes: an attribute before opset 13, an input from 13.
// Returns false when they are an input whose value is not known.
bool read_axes(const NodeInfo& node, const Tensor* axes_input, bool has_axes_input,
               std::vector<int64_t>& axes) {
  if (node.opset() < 13) {
    axes = node.attr_ints("axes", {});
    return true;
  }
  if (!has_axes_input) return true;
  if (axes_input == nullptr) return false;
  axes = int64_values(node, *axes_input, "axes");
  return true;
}

std::set<int64_t> unique_axes(const NodeInfo& node, const std::vector<int64_t>& axes,
                              int64_t rank) {
  std::set<int64_t> normalized;
  for (int64_t axis : axes) {
    if (!normalized.insert(node_axis(node, axis, rank)).second) {
      node.fail(ErrorCode::kInvalidModel, "axis {} is repeated", axis);
    }
  }
  return normalized;
}

Shape squeeze_shape(const NodeInfo& node, const Shape& input, const std::vector<int64_t>& axes) {
  const int64_t rank = static_cast<int64_t>(input.size());
  const std::set<int64_t> removed = unique_axes(node, axes, rank);
  Shape output;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t dim = input[static_cast<size_t>(i)];
    if (removed.empty() ? dim == 1 : removed.count(i) != 0) {
      if (dim != 1) {
        node.fail(ErrorCode::kInvalidArgument, "cannot squeeze axis {} of size {} (input {})", i,
                  dim, shape_to_string(input));
      }
      continue;
    }
    output.push_back(dim);
  }
  return output;
}

Shape unsqueeze_shape(const NodeInfo& node, const Shape& input, const std::vector<int64_t>& axes) {
  if (axes.empty()) node.fail(ErrorCode::kInvalidModel, "axes must not be empty");
  const int64_t rank = static_cast<int64_t>(input.size() + axes.size());
  const std::set<int64_t> inserted = unique_axes(node, axes, rank);
  Shape output;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    output.push_back(inserted.count(i) != 0 ? 1 : input[next++]);
  }
  return output;
}

using ShapeRule = Shape (*)(const NodeInfo&, const Shape&, const std::vector<int64_t>&);

OpKernel make_axes_reshape(const char* op_type, ShapeRule rule) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [rule](InferContext& ctx) {
    std::vector<int64_t> axes;
    const bool has_axes = ctx.has_input(1);
    if (!read_axes(ctx.node(), has_axes ? ctx.input(1).value : nullptr, has_axes, axes)) {
      return ctx.set_output_dynamic(0, ctx.input(0).dtype);
    }
    ctx.set_output(0, ctx.input(0).dtype, rule(ctx.node(), ctx.input(0).shape, axes));
  };
  kernel.compute = [rule](KernelContext& ctx) {
    std::vector<int64_t> axes;
    const bool has_axes = ctx.has_input(1);
    read_axes(ctx.node(), has_axes ? &ctx.input(1) : nullptr, has_axes, axes);
    const Tensor& data = ctx.input(0);
    ctx.set_output(0, data.reshaped(rule(ctx.node(), data.shape(), axes)));
  };
  return kernel;
}

}  // namespace

OpKernel reshape_kernel() { return make_reshape(); }
OpKernel flatten_kernel() { return make_flatten(); }
OpKernel squeeze_kernel() { return make_axes_reshape("Squeeze", squeeze_shape); }
OpKernel unsqueeze_kernel() { return make_axes_reshape("Unsqueeze", unsqueeze_shape); }

OpKernel identity_kernel() {
  OpKernel kernel;
  kernel.op_type = "Identity";
  kernel.infer = [](InferContext& ctx) {
    ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
  };
  kernel.compute = [](KernelContext& ctx) { ctx.set_output(0, ctx.input(0)); };
  return kernel;
}

}  // namespace inferlab::kernels::reference
