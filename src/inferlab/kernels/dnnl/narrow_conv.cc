// FusedConv on narrow_conv_f32; see narrow_conv.h.
#include "inferlab/kernels/dnnl/narrow_conv.h"

#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

constexpr size_t kResidual = 3;

// oneDNN pads the output channels to whole vectors of the ISA: this kernel
// pays off where that padding is a large share, and where its own tiles
// (O outputs, vectors of input channels) divide the channel counts.
bool qualifies(const Shape& x, const Shape& w, int64_t group, const reference::WindowGeometry& g,
               const cpu::KernelTable& table) {
  if (x.size() != 4 || group != 1 || w[2] != 3 || w[3] != 3) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (g.strides[i] != 1 || g.dilations[i] != 1) return false;
  }
  const int64_t channels = w[1];
  const int64_t outputs = w[0];
  const int64_t vector = table.narrow_conv_channels * table.narrow_conv_group;
  return channels % table.narrow_conv_channels == 0 && outputs % table.narrow_conv_outputs == 0 &&
         outputs % vector != 0 && outputs < 2 * vector;
}

}  // namespace

std::optional<NarrowConv> prepare_narrow_conv(PrepareContext& ctx, const cpu::KernelTable& table) {
  const NodeInfo& node = ctx.node();
  if (!layout::is_channels_last(node) || ctx.has_input(kResidual) ||
      (ctx.has_input(2) &&
       (ctx.input(2).value == nullptr || ctx.input(2).dtype != DataType::kFloat32))) {
    return std::nullopt;
  }
  const Shape& w = ctx.input(1).shape;
  const Shape x = layout::to_channels_first(ctx.input(0).shape);
  const Shape y = layout::to_channels_first(ctx.output(0).shape);
  if (x.size() != 4 || w.size() != 4) return std::nullopt;
  const reference::WindowGeometry g = reference::resolve_window(
      node, Shape(x.begin() + 2, x.end()), reference::kernel_from_weights(node, w), {});
  if (!qualifies(x, w, node.attr_int("group", 1), g, table)) return std::nullopt;

  NarrowConv conv;
  conv.table = &table;
  conv.batch = x[0];
  conv.shape = {x[1], w[0], x[2], x[3], y[2], y[3], g.pads_begin[0], g.pads_begin[1]};
  conv.output_shape = ctx.output(0).shape;
  conv.activation = fused::parse_activation(node);
  conv.zeros.assign(static_cast<size_t>(x[1]), 0.0f);
  if (ctx.has_input(2)) {
    conv.bias = ctx.input(2).value->data<float>();
  } else {
    conv.zero_bias.assign(static_cast<size_t>(w[0]), 0.0f);
  }
  // ONNX's W [M, C, 3, 3] read as [M / O, 3, C / S, 3, O / G, G, S]: a
  // strided view oneDNN reorders.
  const int64_t o = table.narrow_conv_outputs;
  const int64_t step = table.narrow_conv_channels;
  const int64_t group = table.narrow_conv_group;
  const int64_t c = w[1];
  const dnnl::memory::dims dims{w[0] / o, 3, c / step, 3, o / group, group, step};
  const dnnl::memory::desc onnx_view(
      dims, dnnl::memory::data_type::f32,
      dnnl::memory::dims{o * c * 9, 3, step * 9, 1, group * c * 9, c * 9, 9});
  conv.weights = packed_weights(
      ctx, 1, onnx_view,
      dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::abcdefg));
  return conv;
}

void run_narrow_conv(const NarrowConv& conv, KernelContext& ctx) {
  const cpu::NarrowConvShape& s = conv.shape;
  Tensor& y = ctx.output(0, DataType::kFloat32, conv.output_shape);
  const float* bias = conv.bias != nullptr ? conv.bias : conv.zero_bias.data();
  const auto* weights = reinterpret_cast<const float*>(conv.weights->data());
  const int64_t in_image = s.in_h * s.in_w * s.channels;
  const int64_t out_row = s.out_w * s.out_channels;
  const int64_t cost_per_row = out_row * s.channels * 9;
  for (int64_t n = 0; n < conv.batch; ++n) {
    const float* x = ctx.input(0).data<float>() + n * in_image;
    float* out = y.data<float>() + n * s.out_h * out_row;
    cpu::parallel_ranges(s.out_h, cost_per_row, 1, [&](int64_t begin, int64_t end) {
      conv.table->narrow_conv_f32(s, x, weights, bias, conv.zeros.data(), out, begin, end);
      // The rows just written are still in cache.
      fused::apply_activation(conv.activation, out + begin * out_row, (end - begin) * out_row,
                              conv.table->isa);
    });
  }
}

}  // namespace inferlab::kernels::dnnl_backend
