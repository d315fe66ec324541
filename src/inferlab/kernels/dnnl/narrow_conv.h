// A channels-last FusedConv with few output channels on InferLab's own
// narrow_conv_f32 instead of oneDNN (dnnl_conv.cc asks here first): 3x3,
// stride 1, no dilation or groups, no residual, and an output channel
// count oneDNN would pad to whole vectors — fewer than two vectors and not
// a multiple of one (PaddleOCR's 96 -> 24 convolutions: oneDNN computes 32
// channels of which 8 are padding).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::dnnl_backend {

struct NarrowConv {
  const cpu::KernelTable* table = nullptr;
  std::shared_ptr<AlignedBytes> weights;  // [M / O][3][C / S][3][O / G][G][S]
  const float* bias = nullptr;            // the constant bias, or zero_bias
  std::vector<float> zero_bias;
  std::vector<float> zeros;  // C zeros: the pixels of the padding
  fused::Activation activation;
  cpu::NarrowConvShape shape;
  int64_t batch = 0;
  Shape output_shape;
};

// The node on narrow_conv_f32 of `table`, or nullopt when it does not
// qualify (oneDNN runs it).
std::optional<NarrowConv> prepare_narrow_conv(PrepareContext& ctx, const cpu::KernelTable& table);
void run_narrow_conv(const NarrowConv& conv, KernelContext& ctx);

}  // namespace inferlab::kernels::dnnl_backend
