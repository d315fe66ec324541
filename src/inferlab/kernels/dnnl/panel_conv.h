// A channels-last FusedConv with few output pixels and large weights as a
// product on InferLab's panel_gemm_f32 (dnnl_conv.cc asks here first):
// resnet50's layer4 and the last blocks of mobilenet_v2 and
// efficientnet_b0, 7x7 outputs of 1x1 and 3x3 convolutions whose weights
// (0.3 to 9 MiB) stream from memory once per image. oneDNN's brgconv waits
// for them: 2048 -> 512 at 7x7 ran 0.60 ms with the weights in cache and
// 0.93 without. The input is laid out as rows of im2col (none for a 1x1
// stride-1 convolution without pads: the input is that matrix), the
// weights packed once for the panel kernel, which prefetches the next
// block's weights while it computes.
#pragma once

#include <optional>

#include "inferlab/kernels/dnnl/panel_gemm.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {

struct PanelConv {
  PanelGemm gemm;  // rows: batch x output pixels; depth: kernel pixels x C; columns: M
  reference::WindowGeometry geometry;  // 2-D
  int64_t channels = 0;
  bool direct = false;  // the input is A itself
  Shape output_shape;
};

// The node on panel_gemm_f32 of `table`, or nullopt when it does not
// qualify (oneDNN runs it).
std::optional<PanelConv> prepare_panel_conv(PrepareContext& ctx, const cpu::KernelTable& table);
void run_panel_conv(const PanelConv& conv, KernelContext& ctx);

}  // namespace inferlab::kernels::dnnl_backend
