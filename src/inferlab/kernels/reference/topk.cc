// TopK: the k largest (or smallest) elements along an axis and their
// indices. Ties keep the lower index first, as ONNX specifies; NaN ranks
// above every number so the comparison stays a strict weak order.
#include <cmath>

#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

template <typename K>
bool ranks_before(K a, int64_t index_a, K b, int64_t index_b, bool largest) {
  if constexpr (std::is_floating_point_v<K>) {
    const bool nan_a = std::isnan(a), nan_b = std::isnan(b);
    if (nan_a || nan_b) {
      if (nan_a && nan_b) return index_a < index_b;
      return largest ? nan_a : nan_b;
    }
  }
  if (a != b) return largest ? a > b : a < b;
  return index_a < index_b;
}

// The k requested (attribute before opset 10, input after); false when that input is unknown.
bool read_k(const NodeInfo& node, const Tensor* k_input, int64_t& k) {
  if (node.opset() < 10) {
    k = node.attr_int("k");
    return true;
  }
  if (k_input == nullptr) return false;
  const auto values = int64_values(node, *k_input, "K");
  if (values.size() != 1)
    node.fail(ErrorCode::kInvalidArgument, "K must hold one value, holds {}", values.size());
  k = values[0];
  return true;
}

Shape topk_shape(const NodeInfo& node, const Shape& input, int64_t k, size_t& axis) {
  if (input.empty()) node.fail(ErrorCode::kInvalidArgument, "input must have rank >= 1");
  axis = static_cast<size_t>(
      node_axis(node, node.attr_int("axis", -1), static_cast<int64_t>(input.size())));
  if (k < 0 || k > input[axis]) {
    node.fail(ErrorCode::kInvalidArgument, "k = {} is outside [0, {}] for axis {} of input {}", k,
              input[axis], axis, shape_to_string(input));
  }
  Shape output = input;
  output[axis] = k;
  return output;
}

template <typename T>
void topk_typed(const Tensor& data, size_t axis, int64_t k, bool largest, Tensor& values,
                Tensor& indices) {
  using Key =
      std::conditional_t<std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>, float, T>;
  const Shape& shape = data.shape();
  const int64_t n = shape[axis];
  const int64_t outer = dims_product(shape, 0, axis);
  const int64_t inner = dims_product(shape, axis + 1, shape.size());
  const T* in = data.data<T>();
  T* out_values = values.data<T>();
  int64_t* out_indices = indices.data<int64_t>();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::vector<Key> keys(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const T* column = in + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) {
        order[static_cast<size_t>(j)] = j;
        if constexpr (std::is_same_v<Key, float> && !std::is_same_v<T, float>) {
          keys[static_cast<size_t>(j)] = column[j * inner].to_float();
        } else {
          keys[static_cast<size_t>(j)] = column[j * inner];
        }
      }
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
        return ranks_before(keys[static_cast<size_t>(a)], a, keys[static_cast<size_t>(b)], b,
                            largest);
      });
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = (o * k + j) * inner + i;
        out_values[at] = column[order[static_cast<size_t>(j)] * inner];
        out_indices[at] = order[static_cast<size_t>(j)];
      }
    }
  }
}

}  // namespace

OpKernel topk_kernel() {
  OpKernel kernel;
  kernel.op_type = "TopK";
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    int64_t k = 0;
    const Tensor* k_input = ctx.has_input(1) ? ctx.input(1).value : nullptr;
    if (!read_k(ctx.node(), k_input, k)) {
      ctx.set_output_dynamic(0, data.dtype);
      ctx.set_output_dynamic(1, DataType::kInt64);
      return;
    }
    size_t axis = 0;
    const Shape shape = topk_shape(ctx.node(), data.shape, k, axis);
    ctx.set_output(0, data.dtype, shape);
    ctx.set_output(1, DataType::kInt64, shape);
  };
  kernel.compute = [](KernelContext& ctx) {
    const NodeInfo& node = ctx.node();
    const Tensor& data = ctx.input(0);
    int64_t k = 0;
    if (!read_k(node, ctx.has_input(1) ? &ctx.input(1) : nullptr, k)) {
      node.fail(ErrorCode::kInvalidModel, "input 'K' is missing");
    }
    size_t axis = 0;
    const Shape shape = topk_shape(node, data.shape(), k, axis);
    const bool largest = node.opset() < 11 || node.attr_int("largest", 1) != 0;
    // Indices go to output 1 when the graph asks for it, else to scratch.
    Tensor scratch;
    Tensor* indices = &scratch;
    if (ctx.num_outputs() > 1) {
      indices = &ctx.output(1, DataType::kInt64, shape);
    } else {
      scratch = Tensor(DataType::kInt64, shape);
    }
    Tensor& values = ctx.output(0, data.dtype(), shape);
    visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, std::string>) {
        node.fail(ErrorCode::kInvalidModel, "TopK is not defined for strings");
      } else {
        topk_typed<T>(data, axis, k, largest, values, *indices);
      }
    });
  };
  return kernel;
}

}  // namespace inferlab::kernels::reference
