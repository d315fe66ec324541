// FusedConv on panel_gemm_f32; see panel_conv.h.
#include "inferlab/kernels/dnnl/panel_conv.h"

#include <algorithm>
#include <cstring>

#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/layout/channels_last.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

constexpr size_t kResidual = 3;
// Output pixels (over the batch) up to which the panel kernel measured
// faster: 10-25% at 7x7 on every 1x1 and 3x3 shape of the zoo; at 14x14
// some shapes lost (1024 -> 256: 1.06 of oneDNN's time), and from 28x28
// on oneDNN's blocking of the pixels wins.
constexpr int64_t kMaxPixels = 64;

// Row r of im2col (image n, output pixel (oh, ow)): the kernel's pixels in
// order, C channels each, zeros where the window leaves the image.
void im2col_rows(const PanelConv& conv, const float* x, float* a, int64_t row_begin,
                 int64_t row_end) {
  const reference::WindowGeometry& g = conv.geometry;
  const int64_t c = conv.channels;
  const int64_t pixels = g.output[0] * g.output[1];
  const int64_t depth = conv.gemm.shape.depth;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t n = r / pixels;
    const int64_t oh = r % pixels / g.output[1];
    const int64_t ow = r % g.output[1];
    float* row = a + r * depth;
    for (int64_t i = 0; i < g.kernel[0]; ++i) {
      const int64_t ih = oh * g.strides[0] - g.pads_begin[0] + i * g.dilations[0];
      for (int64_t j = 0; j < g.kernel[1]; ++j, row += c) {
        const int64_t iw = ow * g.strides[1] - g.pads_begin[1] + j * g.dilations[1];
        if (ih < 0 || ih >= g.input[0] || iw < 0 || iw >= g.input[1]) {
          std::fill(row, row + c, 0.0f);
        } else {
          std::memcpy(row, x + ((n * g.input[0] + ih) * g.input[1] + iw) * c,
                      static_cast<size_t>(c) * sizeof(float));
        }
      }
    }
  }
}

// The im2col matrix A, rows x depth, unless the input is A itself.
size_t im2col_bytes(const PanelConv& conv) {
  const cpu::PanelGemmShape& s = conv.gemm.shape;
  return conv.direct ? 0 : static_cast<size_t>(s.rows * s.depth) * sizeof(float);
}

}  // namespace

std::optional<PanelConv> prepare_panel_conv(PrepareContext& ctx, const cpu::KernelTable& table) {
  const NodeInfo& node = ctx.node();
  // The residual is read as the output is written: same shape, no broadcast.
  if (!layout::is_channels_last(node) ||
      (ctx.has_input(kResidual) && (ctx.input(kResidual).dtype != DataType::kFloat32 ||
                                    ctx.input(kResidual).shape != ctx.output(0).shape))) {
    return std::nullopt;
  }
  const Shape& w = ctx.input(1).shape;
  const Shape x = layout::to_channels_first(ctx.input(0).shape);
  const Shape y = layout::to_channels_first(ctx.output(0).shape);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4 || node.attr_int("group", 1) != 1 ||
      y[0] * y[2] * y[3] > kMaxPixels) {
    return std::nullopt;
  }
  PanelConv conv;
  conv.geometry = reference::resolve_window(node, Shape(x.begin() + 2, x.end()),
                                            reference::kernel_from_weights(node, w), {});
  const reference::WindowGeometry& g = conv.geometry;
  const int64_t m = w[0];
  const int64_t c = w[1];
  const int64_t kh = w[2];
  const int64_t kw = w[3];
  const int64_t block = table.panel_gemm_block;
  if (c != x[1] || m % block != 0) return std::nullopt;
  // ONNX's W [M, C, kh, kw] read as [M / block][kh][kw][C][block]: depth
  // (i, j, c) in im2col's order.
  const dnnl::memory::desc view(
      {m / block, kh, kw, c, block}, dnnl::memory::data_type::f32,
      dnnl::memory::dims{block * c * kh * kw, kw, 1, kh * kw, c * kh * kw});
  auto gemm = prepare_panel_viewed(ctx, {y[0] * y[2] * y[3], kh * kw * c, m}, view, table);
  if (!gemm) return std::nullopt;
  gemm->activation = fused::parse_activation(node);
  conv.gemm = std::move(*gemm);
  conv.channels = c;
  conv.direct = kh == 1 && kw == 1 && g.strides[0] == 1 && g.strides[1] == 1 &&
                g.pads_begin[0] == 0 && g.pads_begin[1] == 0 && g.pads_end[0] == 0 &&
                g.pads_end[1] == 0;
  conv.output_shape = ctx.output(0).shape;
  ctx.expect_scratch(panel_gemm_scratch_bytes(conv.gemm) + im2col_bytes(conv));
  return conv;
}

void run_panel_conv(const PanelConv& conv, KernelContext& ctx) {
  const cpu::PanelGemmShape& s = conv.gemm.shape;
  Tensor& y = ctx.output(0, DataType::kFloat32, conv.output_shape);
  const size_t packed_bytes = panel_gemm_scratch_bytes(conv.gemm);
  const size_t matrix_bytes = static_cast<size_t>(s.rows) * sizeof(float);
  const bool has_residual = ctx.has_input(kResidual);
  // The runtime may give Y the residual's buffer (oneDNN's sum post-op
  // works in place); this kernel writes Y before adding Z, so Z moves first.
  const bool residual_in_place =
      has_residual && ctx.input(kResidual).raw_data() == static_cast<const void*>(y.raw_data());
  const size_t residual_bytes =
      residual_in_place ? matrix_bytes * static_cast<size_t>(s.columns) : 0;
  auto* scratch = static_cast<std::byte*>(
      ctx.scratch_bytes(packed_bytes + im2col_bytes(conv) + residual_bytes));
  const float* x = ctx.input(0).data<float>();
  const float* a = x;
  if (!conv.direct) {
    auto* rows = reinterpret_cast<float*>(scratch + packed_bytes);
    cpu::parallel_ranges(s.rows, s.depth, 1, [&](int64_t begin, int64_t end) {
      im2col_rows(conv, x, rows, begin, end);
    });
    a = rows;
  }
  const float* residual = has_residual ? ctx.input(kResidual).data<float>() : nullptr;
  if (residual_in_place) {
    auto* copy = reinterpret_cast<float*>(scratch + packed_bytes + im2col_bytes(conv));
    std::memcpy(copy, residual, residual_bytes);
    residual = copy;
  }
  run_panel_product(conv.gemm, a, y.data<float>(), reinterpret_cast<float*>(scratch), residual);
}

}  // namespace inferlab::kernels::dnnl_backend
