// Pad: constant, reflect and edge modes. Pads come from an attribute before
// opset 11 and from an input after (with an optional constant_value input,
// and an `axes` input in opset 18). Negative pads crop. Each output
// coordinate maps, per axis, to a source coordinate or to "outside"
// (constant mode), computed once per axis.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

// Full-rank [begin..., end...] pads, or false when an input among them is not known.
template <typename ValueOf>
bool read_pads(const NodeInfo& node, size_t rank, ValueOf value_of, std::vector<int64_t>& pads) {
  std::vector<int64_t> requested;
  if (node.opset() < 11) {
    requested = node.attr_ints(node.has_attr("pads") ? "pads" : "paddings");
  } else {
    bool present = true;
    const Tensor* pads_tensor = value_of(1, present);
    if (pads_tensor == nullptr) return false;
    requested = int64_values(node, *pads_tensor, "pads");
  }
  std::vector<int64_t> axes;
  bool has_axes = false;
  if (node.opset() >= 18) {
    const Tensor* axes_tensor = value_of(3, has_axes);
    if (has_axes && axes_tensor == nullptr) return false;
    if (has_axes) axes = int64_values(node, *axes_tensor, "axes");
  }
  if (!has_axes) {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (requested.size() != 2 * axes.size()) {
    node.fail(ErrorCode::kInvalidArgument, "pads has {} entries, expected {}", requested.size(),
              2 * axes.size());
  }
  pads.assign(2 * rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto axis = static_cast<size_t>(node_axis(node, axes[i], static_cast<int64_t>(rank)));
    pads[axis] = requested[i];
    pads[axis + rank] = requested[i + axes.size()];
  }
  return true;
}

Shape padded_shape(const NodeInfo& node, const Shape& input, const std::vector<int64_t>& pads) {
  Shape output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    output[i] = input[i] + pads[i] + pads[i + input.size()];
    if (output[i] < 0) {
      node.fail(ErrorCode::kInvalidArgument, "pads {} make axis {} of input {} negative",
                shape_to_string(pads), i, shape_to_string(input));
    }
  }
  return output;
}

// Source coordinate for output coordinate `o` on an axis of size `dim`, or -1 (outside).
int64_t source_coordinate(const NodeInfo& node, const std::string& mode, int64_t o, int64_t begin,
                          int64_t dim) {
  int64_t s = o - begin;
  if (s >= 0 && s < dim) return s;
  if (mode == "constant") return -1;
  if (dim == 0) node.fail(ErrorCode::kInvalidArgument, "cannot {}-pad an empty axis", mode);
  if (mode == "edge") return std::clamp<int64_t>(s, 0, dim - 1);
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);  // reflect without repeating the edge
  s %= period;
  if (s < 0) s += period;
  return s < dim ? s : period - s;
}

void pad_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const Shape& input = data.shape();
  const size_t rank = input.size();
  std::vector<int64_t> pads;
  const bool has_pads = read_pads(
      node, rank,
      [&](size_t i, bool& present) {
        present = ctx.has_input(i);
        return present ? &ctx.input(i) : nullptr;
      },
      pads);
  if (!has_pads) node.fail(ErrorCode::kInvalidModel, "input 'pads' is missing");
  const std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    node.fail(ErrorCode::kUnsupported, "mode '{}' is not supported", mode);
  }
  const Shape output_shape = padded_shape(node, input, pads);
  std::vector<std::vector<int64_t>> source(rank);
  for (size_t axis = 0; axis < rank; ++axis) {
    for (int64_t o = 0; o < output_shape[axis]; ++o) {
      source[axis].push_back(source_coordinate(node, mode, o, pads[axis], input[axis]));
    }
  }
  const auto strides = shape_strides(input);
  Tensor& out = ctx.output(0, data.dtype(), output_shape);
  if (out.numel() == 0) return;
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T fill{};
    if (node.opset() < 11) {
      if constexpr (!std::is_same_v<T, std::string>)
        fill = from_double<T>(node.attr_float("value", 0.0f));
    } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
      if (ctx.input(2).dtype() != data.dtype()) {
        node.fail(ErrorCode::kInvalidArgument, "constant_value is {}, data is {}",
                  dtype_name(ctx.input(2).dtype()), dtype_name(data.dtype()));
      }
      fill = ctx.input(2).data<T>()[0];
    }
    const T* in = data.data<T>();
    T* dst = out.data<T>();
    std::vector<int64_t> coord(rank, 0);
    for (int64_t i = 0; i < out.numel(); ++i) {
      int64_t offset = 0;
      bool inside = true;
      for (size_t d = 0; d < rank && inside; ++d) {
        const int64_t s = source[d][static_cast<size_t>(coord[d])];
        inside = s >= 0;
        offset += s * strides[d];
      }
      dst[i] = inside ? in[offset] : fill;
      for (size_t d = rank; d-- > 0;) {
        if (++coord[d] < output_shape[d]) break;
        coord[d] = 0;
      }
    }
  });
}

}  // namespace

OpKernel pad_kernel() {
  OpKernel kernel;
  kernel.op_type = "Pad";
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    std::vector<int64_t> pads;
    const bool known = read_pads(
        ctx.node(), data.shape.size(),
        [&](size_t i, bool& present) {
          present = ctx.has_input(i);
          return present ? ctx.input(i).value : nullptr;
        },
        pads);
    if (!known) return ctx.set_output_dynamic(0, data.dtype);
    ctx.set_output(0, data.dtype, padded_shape(ctx.node(), data.shape, pads));
  };
  kernel.compute = pad_compute;
  return kernel;
}

}  // namespace inferlab::kernels::reference
