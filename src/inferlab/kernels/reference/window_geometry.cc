// Resolves the pads/strides/dilations of sliding-window operators (see header).
#include "inferlab/kernels/reference/window_geometry.h"

#include <algorithm>
#include <string>

namespace inferlab::kernels::reference {
namespace {

constexpr int64_t kMaxWindowValue = int64_t{1} << 31;

Shape per_dim_attr(const NodeInfo& node, const std::string& key, size_t rank, int64_t fallback,
                   int64_t minimum) {
  Shape values = node.attr_ints(key, Shape(rank, fallback));
  if (values.size() != rank) {
    node.fail(ErrorCode::kInvalidModel,
              "attribute '{}' has {} values, expected {} (one per spatial dim)", key, values.size(),
              rank);
  }
  for (int64_t v : values) {
    // The cap keeps every later product and sum of these values far from overflow.
    if (v < minimum || v > kMaxWindowValue) {
      node.fail(ErrorCode::kInvalidModel, "attribute '{}' has invalid value {}", key, v);
    }
  }
  return values;
}

WindowGeometry base_geometry(const NodeInfo& node, const Shape& input_spatial, const Shape& kernel,
                             bool allow_dilations) {
  const size_t rank = input_spatial.size();
  if (kernel.size() != rank) {
    node.fail(ErrorCode::kInvalidModel, "kernel has {} spatial dims but the input has {}",
              kernel.size(), rank);
  }
  WindowGeometry g;
  g.input = input_spatial;
  g.kernel = kernel;
  for (int64_t k : kernel) {
    if (k < 1 || k > kMaxWindowValue) {
      node.fail(ErrorCode::kInvalidModel, "kernel dim {} is out of range", k);
    }
  }
  g.strides = per_dim_attr(node, "strides", rank, 1, 1);
  g.dilations = allow_dilations ? per_dim_attr(node, "dilations", rank, 1, 1) : Shape(rank, 1);
  Shape pads = per_dim_attr(node, "pads", 2 * rank, 0, 0);
  g.pads_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(rank));
  g.pads_end.assign(pads.begin() + static_cast<int64_t>(rank), pads.end());
  return g;
}

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Shape kernel_from_weights(const NodeInfo& node, const Shape& weight_shape) {
  Shape kernel(weight_shape.begin() + 2, weight_shape.end());
  if (node.has_attr("kernel_shape")) {
    Shape declared = node.attr_ints("kernel_shape");
    if (declared != kernel) {
      node.fail(ErrorCode::kInvalidModel,
                "kernel_shape {} does not match the weights' spatial dims {}",
                shape_to_string(declared), shape_to_string(kernel));
    }
  }
  return kernel;
}

WindowGeometry resolve_window(const NodeInfo& node, const Shape& input_spatial, const Shape& kernel,
                              const WindowOptions& options) {
  WindowGeometry g = base_geometry(node, input_spatial, kernel, options.allow_dilations);
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  g.output.resize(g.rank());
  for (size_t i = 0; i < g.rank(); ++i) {
    const int64_t in = g.input[i];
    const int64_t s = g.strides[i];
    const int64_t eff = g.effective_kernel(i);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.output[i] = ceil_div(in, s);
      const int64_t total = std::max<int64_t>(0, (g.output[i] - 1) * s + eff - in);
      const int64_t smaller = total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? smaller : total - smaller;
      g.pads_end[i] = total - g.pads_begin[i];
      continue;
    }
    if (auto_pad == "VALID") {
      g.pads_begin[i] = g.pads_end[i] = 0;
    } else if (auto_pad != "NOTSET") {
      node.fail(ErrorCode::kInvalidModel, "unknown auto_pad '{}'", auto_pad);
    }
    const int64_t span = in + g.pads_begin[i] + g.pads_end[i] - eff;
    if (span < 0) {
      node.fail(ErrorCode::kInvalidArgument,
                "spatial dim {} of size {} (padded {}) is smaller than the kernel extent {}", i, in,
                in + g.pads_begin[i] + g.pads_end[i], eff);
    }
    int64_t out = (options.ceil_mode ? ceil_div(span, s) : floor_div(span, s)) + 1;
    // A last window that would start inside the end padding is dropped (ceil_mode).
    if (options.ceil_mode && (out - 1) * s >= in + g.pads_begin[i]) --out;
    g.output[i] = out;
  }
  return g;
}

WindowGeometry resolve_transposed_window(const NodeInfo& node, const Shape& input_spatial,
                                         const Shape& kernel) {
  WindowGeometry g = base_geometry(node, input_spatial, kernel, true);
  const size_t rank = g.rank();
  const Shape output_padding = per_dim_attr(node, "output_padding", rank, 0, 0);
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" &&
      auto_pad != "VALID") {
    node.fail(ErrorCode::kInvalidModel, "unknown auto_pad '{}'", auto_pad);
  }
  Shape requested;
  if (node.has_attr("output_shape")) {
    requested = node.attr_ints("output_shape");
    // Some exporters give the full N x C x ... shape; keep the spatial part.
    if (requested.size() == rank + 2) requested.erase(requested.begin(), requested.begin() + 2);
    if (requested.size() != rank) {
      node.fail(ErrorCode::kInvalidModel, "output_shape has {} values, expected {}",
                requested.size(), rank);
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    requested.resize(rank);
    for (size_t i = 0; i < rank; ++i) requested[i] = input_spatial[i] * g.strides[i];
  }
  g.output.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t full =
        g.strides[i] * (g.input[i] - 1) + output_padding[i] + g.effective_kernel(i);
    if (!requested.empty()) {
      if (requested[i] < 1) {
        node.fail(ErrorCode::kInvalidModel, "output_shape dim {} = {} must be positive", i,
                  requested[i]);
      }
      // A requested size beyond what the input reaches is filled with the bias alone.
      const int64_t total = std::max<int64_t>(0, full - requested[i]);
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pads_end[i] = total - g.pads_begin[i];
      g.output[i] = requested[i];
      continue;
    } else if (auto_pad == "VALID") {
      g.pads_begin[i] = g.pads_end[i] = 0;
    }
    g.output[i] = full - g.pads_begin[i] - g.pads_end[i];
    if (g.output[i] < 1) {
      node.fail(ErrorCode::kInvalidArgument, "pads leave spatial dim {} empty (size {})", i,
                g.output[i]);
    }
  }
  return g;
}

}  // namespace inferlab::kernels::reference
