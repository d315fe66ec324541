// Operators that make tensors from shapes or attributes: Shape, Size,
// ConstantOfShape, Constant and Range. Their outputs often feed shape
// subgraphs, so each shape rule works from whatever is known.
#include <cmath>

#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

// The [start, end) window of Shape (opset 15), clamped to [0, rank].
std::pair<int64_t, int64_t> shape_window(const NodeInfo& node, int64_t rank) {
  if (node.opset() < 15) return {0, rank};
  auto clamp_axis = [rank](int64_t axis) {
    if (axis < 0) axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  const int64_t start = clamp_axis(node.attr_int("start", 0));
  const int64_t end = clamp_axis(node.attr_int("end", rank));
  return {start, std::max(start, end)};
}

OpKernel make_shape() {
  OpKernel kernel;
  kernel.op_type = "Shape";
  kernel.infer = [](InferContext& ctx) {
    const auto [start, end] =
        shape_window(ctx.node(), static_cast<int64_t>(ctx.input(0).shape.size()));
    ctx.set_output(0, DataType::kInt64, {end - start});
  };
  kernel.compute = [](KernelContext& ctx) {
    const Shape& shape = ctx.input(0).shape();
    const auto [start, end] = shape_window(ctx.node(), static_cast<int64_t>(shape.size()));
    Tensor& out = ctx.output(0, DataType::kInt64, {end - start});
    std::copy(shape.begin() + start, shape.begin() + end, out.data<int64_t>());
  };
  return kernel;
}

OpKernel make_size() {
  OpKernel kernel;
  kernel.op_type = "Size";
  kernel.infer = [](InferContext& ctx) { ctx.set_output(0, DataType::kInt64, {}); };
  kernel.compute = [](KernelContext& ctx) {
    ctx.output(0, DataType::kInt64, {}).data<int64_t>()[0] = ctx.input(0).numel();
  };
  return kernel;
}

Shape shape_from_input(const NodeInfo& node, const Tensor& tensor) {
  Shape shape = int64_values(node, tensor, "input");
  for (int64_t dim : shape) {
    if (dim < 0)
      node.fail(ErrorCode::kInvalidArgument, "shape {} has a negative dim", shape_to_string(shape));
  }
  return shape;
}

DataType constant_of_shape_dtype(const NodeInfo& node) {
  return node.has_attr("value") ? node.attr_tensor("value").dtype() : DataType::kFloat32;
}

OpKernel make_constant_of_shape() {
  OpKernel kernel;
  kernel.op_type = "ConstantOfShape";
  kernel.min_opset = 9;
  kernel.infer = [](InferContext& ctx) {
    const DataType dtype = constant_of_shape_dtype(ctx.node());
    if (ctx.input(0).value == nullptr) return ctx.set_output_dynamic(0, dtype);
    ctx.set_output(0, dtype, shape_from_input(ctx.node(), *ctx.input(0).value));
  };
  kernel.compute = [](KernelContext& ctx) {
    const NodeInfo& node = ctx.node();
    const Shape shape = shape_from_input(node, ctx.input(0));
    if (!node.has_attr("value")) {
      Tensor& out = ctx.output(0, DataType::kFloat32, shape);
      std::fill(out.data<float>(), out.data<float>() + out.numel(), 0.0f);
      return;
    }
    const Tensor& value = node.attr_tensor("value");
    if (value.numel() != 1) {
      node.fail(ErrorCode::kInvalidModel, "value must hold one element, holds {}", value.numel());
    }
    Tensor& out = ctx.output(0, value.dtype(), shape);
    visit_any_dtype(value.dtype(), node.op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::fill(out.data<T>(), out.data<T>() + out.numel(), value.data<T>()[0]);
    });
  };
  return kernel;
}

// The tensor a Constant node holds, from whichever value attribute it has.
Tensor constant_value(const NodeInfo& node) {
  if (node.has_attr("sparse_value")) {
    node.fail(ErrorCode::kUnsupported, "sparse_value constants are not supported");
  }
  if (node.has_attr("value")) return node.attr_tensor("value");
  if (node.has_attr("value_float")) return Tensor::scalar(node.attr_float("value_float", 0.0f));
  if (node.has_attr("value_int")) return Tensor::scalar(node.attr_int("value_int"));
  if (node.has_attr("value_string")) return Tensor::scalar(node.attr_string("value_string", ""));
  if (node.has_attr("value_floats")) {
    const auto values = node.attr_floats("value_floats", {});
    return Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  }
  if (node.has_attr("value_ints")) {
    const std::vector<int64_t> values = node.attr_ints("value_ints");
    return Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  }
  if (node.has_attr("value_strings")) {
    const auto values = node.attr_strings("value_strings");
    return Tensor::from_vector(values, {static_cast<int64_t>(values.size())});
  }
  node.fail(ErrorCode::kInvalidModel, "has no value attribute");
}

OpKernel make_constant() {
  OpKernel kernel;
  kernel.op_type = "Constant";
  kernel.infer = [](InferContext& ctx) {
    const Tensor value = constant_value(ctx.node());
    ctx.set_output(0, value.dtype(), value.shape());
  };
  // Shares the attribute's memory: outputs are never written through.
  kernel.compute = [](KernelContext& ctx) { ctx.set_output(0, constant_value(ctx.node())); };
  return kernel;
}

// Number of Range elements: max(ceil((limit - start) / delta), 0).
int64_t range_count(const NodeInfo& node, const Tensor& start, const Tensor& limit,
                    const Tensor& delta) {
  for (const Tensor* t : {&start, &limit, &delta}) {
    if (t->numel() != 1)
      node.fail(ErrorCode::kInvalidArgument, "start, limit and delta must be scalars");
    if (t->dtype() != start.dtype())
      node.fail(ErrorCode::kInvalidArgument, "start, limit and delta differ in type");
  }
  if (is_integer_dtype(start.dtype())) {
    const int64_t s = start.to_int64_vector()[0], l = limit.to_int64_vector()[0];
    const int64_t d = delta.to_int64_vector()[0];
    if (d == 0) node.fail(ErrorCode::kInvalidArgument, "delta is 0");
    int64_t span = 0;
    if (__builtin_sub_overflow(l, s, &span)) {
      node.fail(ErrorCode::kLimitExceeded, "limit - start overflows int64");
    }
    if ((span > 0) != (d > 0) || span == 0) return 0;
    return span / d + (span % d != 0 ? 1 : 0);
  }
  const double s = start.element_as_double(0), l = limit.element_as_double(0);
  const double d = delta.element_as_double(0);
  const double count = std::ceil((l - s) / d);
  if (!std::isfinite(count))
    node.fail(ErrorCode::kInvalidArgument, "start, limit and delta give no finite count");
  if (count > 1e12) node.fail(ErrorCode::kLimitExceeded, "would produce {} elements", count);
  return count > 0 ? static_cast<int64_t>(count) : 0;
}

OpKernel make_range() {
  OpKernel kernel;
  kernel.op_type = "Range";
  kernel.min_opset = 11;
  kernel.infer = [](InferContext& ctx) {
    const DataType dtype = ctx.input(0).dtype;
    for (size_t i = 0; i < 3; ++i) {
      if (ctx.input(i).value == nullptr) return ctx.set_output_dynamic(0, dtype);
    }
    ctx.set_output(
        0, dtype,
        {range_count(ctx.node(), ctx.input_value(0), ctx.input_value(1), ctx.input_value(2))});
  };
  kernel.compute = [](KernelContext& ctx) {
    const Tensor &start = ctx.input(0), &limit = ctx.input(1), &delta = ctx.input(2);
    const int64_t count = range_count(ctx.node(), start, limit, delta);
    Tensor& out = ctx.output(0, start.dtype(), {count});
    visit_dtype(start.dtype(), ctx.node().op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        ctx.node().fail(ErrorCode::kInvalidModel, "Range is not defined for bool");
      } else {
        const T s = start.data<T>()[0], d = delta.data<T>()[0];
        T* dst = out.data<T>();
        for (int64_t i = 0; i < count; ++i) dst[i] = static_cast<T>(s + static_cast<T>(i) * d);
      }
    });
  };
  return kernel;
}

}  // namespace

OpKernel shape_kernel() { return make_shape(); }
OpKernel size_kernel() { return make_size(); }
OpKernel constant_of_shape_kernel() { return make_constant_of_shape(); }
OpKernel constant_kernel() { return make_constant(); }
OpKernel range_kernel() { return make_range(); }

}  // namespace inferlab::kernels::reference
