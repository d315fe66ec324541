// ScatterElements and ScatterND: a copy of data with elements (or slices)
// at data-supplied indices replaced or combined (reduction, opset 16: add,
// mul; opset 18: max, min). Every index is range-checked before writing.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

Reduction read_reduction(const NodeInfo& node, DataType dtype) {
  const std::string name = node.opset() >= 16 ? node.attr_string("reduction", "none") : "none";
  Reduction reduction = Reduction::kNone;
  if (name == "add")
    reduction = Reduction::kAdd;
  else if (name == "mul")
    reduction = Reduction::kMul;
  else if (name == "max" && node.opset() >= 18)
    reduction = Reduction::kMax;
  else if (name == "min" && node.opset() >= 18)
    reduction = Reduction::kMin;
  else if (name != "none")
    node.fail(ErrorCode::kInvalidModel, "unknown reduction '{}'", name);
  if (reduction != Reduction::kNone && dtype == DataType::kString) {
    node.fail(ErrorCode::kInvalidModel, "reduction '{}' is not defined for strings", name);
  }
  return reduction;
}

template <typename T>
void combine(T& target, const T& update, Reduction reduction) {
  if constexpr (std::is_same_v<T, std::string>) {
    target = update;
  } else if constexpr (std::is_same_v<T, bool>) {
    const bool any = reduction == Reduction::kAdd || reduction == Reduction::kMax;
    if (reduction == Reduction::kNone)
      target = update;
    else
      target = any ? (target || update) : (target && update);
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    T wide_result = update;
    if (reduction != Reduction::kNone) {
      float wide = target.to_float();
      combine(wide, update.to_float(), reduction);
      wide_result = T::from_float(wide);
    }
    target = wide_result;
  } else if constexpr (std::is_integral_v<T>) {
    // Wrapping arithmetic in unsigned (at least unsigned int): signed
    // overflow, and int promotion of small types, would be undefined.
    using Wide =
        std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    const auto a = static_cast<Wide>(target), b = static_cast<Wide>(update);
    switch (reduction) {
      case Reduction::kNone:
        target = update;
        break;
      case Reduction::kAdd:
        target = static_cast<T>(static_cast<Wide>(a + b));
        break;
      case Reduction::kMul:
        target = static_cast<T>(static_cast<Wide>(a * b));
        break;
      case Reduction::kMax:
        target = std::max(target, update);
        break;
      case Reduction::kMin:
        target = std::min(target, update);
        break;
    }
  } else {
    switch (reduction) {
      case Reduction::kNone:
        target = update;
        break;
      case Reduction::kAdd:
        target = static_cast<T>(target + update);
        break;
      case Reduction::kMul:
        target = static_cast<T>(target * update);
        break;
      case Reduction::kMax:
        target = std::max(target, update);
        break;
      case Reduction::kMin:
        target = std::min(target, update);
        break;
    }
  }
}

void require_index_type(const NodeInfo& node, DataType dtype) {
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    node.fail(ErrorCode::kInvalidModel, "indices must be int32 or int64, got {}",
              dtype_name(dtype));
  }
}

// Applies updates[i] to out[targets[i] + k] for k < block, typed.
void apply_updates(const NodeInfo& node, const Tensor& data, const Tensor& updates,
                   const std::vector<int64_t>& targets, int64_t block, Reduction reduction,
                   Tensor& out) {
  if (updates.dtype() != data.dtype()) {
    node.fail(ErrorCode::kInvalidArgument, "updates are {}, data is {}",
              dtype_name(updates.dtype()), dtype_name(data.dtype()));
  }
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = data.data<T>();
    const T* src = updates.data<T>();
    T* dst = out.data<T>();
    std::copy(in, in + data.numel(), dst);
    for (size_t i = 0; i < targets.size(); ++i) {
      for (int64_t k = 0; k < block; ++k) {
        combine(dst[targets[i] + k], src[static_cast<int64_t>(i) * block + k], reduction);
      }
    }
  });
}

void scatter_elements_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  require_index_type(node, indices_tensor.dtype());
  const Reduction reduction = read_reduction(node, data.dtype());
  const Shape& shape = indices_tensor.shape();
  const int64_t rank = data.rank();
  if (shape != updates.shape() || static_cast<int64_t>(shape.size()) != rank || rank == 0) {
    node.fail(ErrorCode::kInvalidArgument,
              "indices {} and updates {} must match in shape and have the rank of data {}",
              shape_to_string(shape), shape_to_string(updates.shape()),
              shape_to_string(data.shape()));
  }
  const auto axis = static_cast<size_t>(node_axis(node, node.attr_int("axis", 0), rank));
  const std::vector<int64_t> targets =
      element_offsets_along_axis(node, data.shape(), shape, indices_tensor.to_int64_vector(), axis);
  Tensor& out = ctx.output(0, data.dtype(), data.shape());
  apply_updates(node, data, updates, targets, 1, reduction, out);
}

void scatter_nd_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Tensor& indices_tensor = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  require_index_type(node, indices_tensor.dtype());
  const Reduction reduction = read_reduction(node, data.dtype());
  const Shape& shape = indices_tensor.shape();
  const Shape& data_shape = data.shape();
  const int64_t k = shape.empty() ? 0 : shape.back();
  if (shape.empty() || k < 1 || k > data.rank()) {
    node.fail(ErrorCode::kInvalidArgument, "indices {} do not index data {}",
              shape_to_string(shape), shape_to_string(data_shape));
  }
  Shape expected_updates(shape.begin(), shape.end() - 1);
  expected_updates.insert(expected_updates.end(), data_shape.begin() + k, data_shape.end());
  if (updates.shape() != expected_updates) {
    node.fail(ErrorCode::kInvalidArgument, "updates have shape {}, expected {}",
              shape_to_string(updates.shape()), shape_to_string(expected_updates));
  }
  const auto indices = indices_tensor.to_int64_vector();
  const auto strides = shape_strides(data_shape);
  const auto depth = static_cast<size_t>(k);
  std::vector<int64_t> targets(indices.size() / depth);
  for (size_t t = 0; t < targets.size(); ++t) {
    int64_t offset = 0;
    for (size_t d = 0; d < depth; ++d) {
      offset +=
          checked_index(node, indices[t * depth + d], data_shape[d], static_cast<int64_t>(d)) *
          strides[d];
    }
    targets[t] = offset;
  }
  const int64_t block = dims_product(data_shape, depth, data_shape.size());
  Tensor& out = ctx.output(0, data.dtype(), data_shape);
  apply_updates(node, data, updates, targets, block, reduction, out);
}

void same_as_data(InferContext& ctx) {
  require_index_type(ctx.node(), ctx.input(1).dtype);
  ctx.set_output(0, ctx.input(0).dtype, ctx.input(0).shape);
}

}  // namespace

OpKernel scatter_elements_kernel() {
  OpKernel kernel;
  kernel.op_type = "ScatterElements";
  kernel.min_opset = 11;
  kernel.infer = same_as_data;
  kernel.compute = scatter_elements_compute;
  return kernel;
}

OpKernel scatter_nd_kernel() {
  OpKernel kernel;
  kernel.op_type = "ScatterND";
  kernel.min_opset = 11;
  kernel.infer = same_as_data;
  kernel.compute = scatter_nd_compute;
  return kernel;
}

}  // namespace inferlab::kernels::reference
