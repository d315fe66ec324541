// Geometry shared by the sliding-window operators (Conv, ConvTranspose,
// AveragePool, MaxPool): strides, dilations, pads and auto_pad resolved per
// spatial dimension into explicit begin/end pads and output sizes, with
// ONNX's rules and validation in one place.
#pragma once

#include <cstdint>

#include "inferlab/core/shape.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

struct WindowGeometry {
  Shape input;  // spatial dims only
  Shape kernel;
  Shape strides;
  Shape dilations;
  Shape pads_begin;
  Shape pads_end;
  Shape output;

  size_t rank() const { return input.size(); }
  // Extent of the dilated kernel along dim `i`: (k - 1) * d + 1.
  int64_t effective_kernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

struct WindowOptions {
  bool ceil_mode = false;       // pooling opset 10+
  bool allow_dilations = true;  // AveragePool has none before opset 19
};

// Forward windows (Conv, pools): output = floor_or_ceil((in + pads - eff_k) / s) + 1,
// or ONNX's SAME_UPPER / SAME_LOWER / VALID rules. Throws naming the node when
// an attribute has the wrong length or value or the output would be empty.
WindowGeometry resolve_window(const NodeInfo& node, const Shape& input_spatial, const Shape& kernel,
                              const WindowOptions& options);

// ConvTranspose: output = s * (in - 1) + output_padding + eff_k - pads, or pads
// derived from an explicit output_shape attribute or from auto_pad.
WindowGeometry resolve_transposed_window(const NodeInfo& node, const Shape& input_spatial,
                                         const Shape& kernel);

// The spatial kernel of a Conv-like op: W's trailing dims, checked against a
// kernel_shape attribute when present.
Shape kernel_from_weights(const NodeInfo& node, const Shape& weight_shape);

}  // namespace inferlab::kernels::reference
