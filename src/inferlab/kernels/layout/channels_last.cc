// Channels-last shapes, copies and the reference forms of the channels-last
// operators; see channels_last.h.
#include "inferlab/kernels/layout/channels_last.h"

#include <cstring>
#include <vector>

#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::layout {
namespace {

constexpr int64_t kNewestStandardOpset = 18;

bool listed(std::initializer_list<size_t> indices, size_t index) {
  for (size_t i : indices)
    if (i == index) return true;
  return false;
}

template <size_t Bytes>
void transpose_planes(const std::byte* x, std::byte* y, int64_t batch, int64_t rows,
                      int64_t columns) {
  // Per batch, x is rows x columns and y columns x rows.
  for (int64_t n = 0; n < batch; ++n) {
    const std::byte* src = x + n * rows * columns * Bytes;
    std::byte* dst = y + n * rows * columns * Bytes;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < columns; ++c) {
        std::memcpy(dst + (c * rows + r) * Bytes, src + (r * columns + c) * Bytes, Bytes);
      }
    }
  }
}

}  // namespace

Shape to_channels_last(const Shape& channels_first) {
  if (channels_first.size() < 3) return channels_first;
  Shape shape;
  shape.push_back(channels_first[0]);
  for (size_t i = 2; i < channels_first.size(); ++i) shape.push_back(channels_first[i]);
  shape.push_back(channels_first[1]);
  return shape;
}

Shape to_channels_first(const Shape& channels_last) {
  if (channels_last.size() < 3) return channels_last;
  Shape shape;
  shape.push_back(channels_last[0]);
  shape.push_back(channels_last.back());
  for (size_t i = 1; i + 1 < channels_last.size(); ++i) shape.push_back(channels_last[i]);
  return shape;
}

void transpose_channels(const void* x, void* y, const Shape& x_shape, size_t element_bytes,
                        bool to_first) {
  const int64_t numel = shape_numel(x_shape);
  if (numel == 0) return;
  const int64_t batch = x_shape[0];
  const int64_t channels = to_first ? x_shape.back() : x_shape[1];
  const int64_t spatial = numel / batch / channels;
  // Channels-last is spatial x channels per batch; channels-first the reverse.
  const int64_t rows = to_first ? spatial : channels;
  const int64_t columns = to_first ? channels : spatial;
  const auto* src = static_cast<const std::byte*>(x);
  auto* dst = static_cast<std::byte*>(y);
  switch (element_bytes) {
    case 1:
      return transpose_planes<1>(src, dst, batch, rows, columns);
    case 2:
      return transpose_planes<2>(src, dst, batch, rows, columns);
    case 4:
      return transpose_planes<4>(src, dst, batch, rows, columns);
    case 8:
      return transpose_planes<8>(src, dst, batch, rows, columns);
    default:
      fail(ErrorCode::kUnsupported, "channels-last copy of {}-byte elements", element_bytes);
  }
}

NodeInfo as_standard_node(const NodeInfo& node, const std::string& op_type) {
  return NodeInfo(node.name(), op_type, kNewestStandardOpset, node.attributes());
}

bool is_channels_last(const NodeInfo& node) {
  const int64_t value = node.attr_int("channels_last", 0);
  if (value != 0 && value != 1) {
    node.fail(ErrorCode::kInvalidModel, "attribute channels_last must be 0 or 1, got {}", value);
  }
  return value == 1;
}

void infer_channels_last(const InferFunction& base, InferContext& ctx,
                         std::initializer_list<size_t> layout_inputs, const NodeInfo* base_node) {
  std::vector<ValueFacts> facts;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    ValueFacts fact = ctx.has_input(i) ? ctx.input(i) : ValueFacts{};
    if (ctx.has_input(i) && listed(layout_inputs, i)) {
      if (fact.shape.size() < 3) {
        ctx.node().fail(ErrorCode::kInvalidArgument,
                        "channels-last input {} must have rank >= 3 (N x ... x C), got {}", i,
                        shape_to_string(fact.shape));
      }
      fact.shape = to_channels_first(fact.shape);
      fact.value = nullptr;  // its bytes are in the other layout
    }
    facts.push_back(std::move(fact));
  }
  InferContext inner(base_node != nullptr ? *base_node : ctx.node(), std::move(facts),
                     ctx.num_outputs());
  base(inner);
  for (size_t i = 0; i < inner.outputs().size(); ++i) {
    const auto& output = inner.outputs()[i];
    if (!output) continue;
    if (!output->second) {
      ctx.set_output_dynamic(i, output->first);
    } else {
      ctx.set_output(i, output->first, to_channels_last(*output->second));
    }
  }
}

void compute_channels_last(const ComputeFunction& base, KernelContext& ctx,
                           std::initializer_list<size_t> layout_inputs, const NodeInfo* base_node) {
  std::vector<Tensor> channels_first;
  channels_first.reserve(ctx.num_inputs());
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) {
      inputs.push_back(nullptr);
      continue;
    }
    const Tensor& x = ctx.input(i);
    if (!listed(layout_inputs, i)) {
      inputs.push_back(&x);
      continue;
    }
    if (x.rank() < 3) {
      ctx.node().fail(ErrorCode::kInvalidArgument,
                      "channels-last input {} must have rank >= 3 (N x ... x C), got {}", i,
                      shape_to_string(x.shape()));
    }
    Tensor& copy = channels_first.emplace_back(x.dtype(), to_channels_first(x.shape()));
    transpose_channels(x.raw_data(), copy.raw_data(), x.shape(), dtype_size(x.dtype()), true);
    inputs.push_back(&copy);
  }
  std::vector<Tensor> outputs(ctx.num_outputs());
  KernelContext inner(base_node != nullptr ? *base_node : ctx.node(), std::move(inputs), outputs);
  base(inner);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& y = outputs[i];
    if (y.empty()) continue;
    Tensor& out = ctx.output(i, y.dtype(), to_channels_last(y.shape()));
    transpose_channels(y.raw_data(), out.raw_data(), y.shape(), dtype_size(y.dtype()), false);
  }
}

namespace {

OpKernel channels_last_form(const OpKernel& base, const char* name) {
  OpKernel kernel = base;
  kernel.op_type = name;
  kernel.domain = "ai.inferlab";
  kernel.min_opset = 1;
  kernel.max_opset = 1;
  kernel.infer = [infer = base.infer, op_type = base.op_type](InferContext& ctx) {
    if (ctx.num_outputs() > 1) {
      ctx.node().fail(ErrorCode::kUnsupported, "channels-last pooling has one output");
    }
    const NodeInfo standard = as_standard_node(ctx.node(), op_type);
    infer_channels_last(infer, ctx, {0}, &standard);
  };
  kernel.compute = [compute = base.compute, op_type = base.op_type](KernelContext& ctx) {
    const NodeInfo standard = as_standard_node(ctx.node(), op_type);
    compute_channels_last(compute, ctx, {0}, &standard);
  };
  kernel.prepare = nullptr;
  return kernel;
}

}  // namespace

OpKernel nhwc_max_pool_kernel() {
  return channels_last_form(reference::max_pool_kernel(), "NhwcMaxPool");
}

OpKernel nhwc_average_pool_kernel() {
  return channels_last_form(reference::average_pool_kernel(), "NhwcAveragePool");
}

OpKernel nhwc_global_average_pool_kernel() {
  return channels_last_form(reference::global_average_pool_kernel(), "NhwcGlobalAveragePool");
}

void register_channels_last_kernels(OpRegistry& registry) {
  registry.add(nhwc_max_pool_kernel());
  registry.add(nhwc_average_pool_kernel());
  registry.add(nhwc_global_average_pool_kernel());
}

}  // namespace inferlab::kernels::layout
