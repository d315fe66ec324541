// Resize (opsets 10, 11, 13, 18) and the deprecated Upsample (7, 9).
// Interpolation is separable: for every output coordinate of every axis we
// precompute "taps" (source index, weight) from the coordinate transform and
// the mode (nearest: 1 tap, linear: 2, cubic: 4), then nearest copies
// elements exactly and linear/cubic run one weighted pass per axis in double.
#include <cmath>

#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

struct Tap {
  int64_t index;
  double weight;
};

struct AxisTaps {
  std::vector<std::vector<Tap>> taps;  // per output coordinate
  std::vector<bool> outside;           // tf_crop_and_resize: extrapolate
};

struct ResizeGeometry {
  Shape output;
  std::vector<double> scales;  // per axis, output / input as ONNX defines it
};

struct ResizeOptions {
  std::string mode = "nearest";
  std::string coordinates = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0.0;
  std::vector<double> roi;  // [starts..., ends...] per axis, full rank
};

bool is_upsample(const NodeInfo& node) { return node.op_type() == "Upsample"; }

// Resize before opset 11 and Upsample: asymmetric coordinates, "simple" nearest.
bool is_legacy(const NodeInfo& node) { return is_upsample(node) || node.opset() < 11; }

std::vector<double> double_values(const Tensor& tensor) {
  std::vector<double> values(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i)
    values[static_cast<size_t>(i)] = tensor.element_as_double(i);
  return values;
}

std::vector<int64_t> resize_axes(const NodeInfo& node, size_t rank) {
  std::vector<int64_t> axes =
      node.opset() >= 18 ? node.attr_ints("axes", {}).to_vector() : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  for (int64_t& axis : axes) axis = node_axis(node, axis, static_cast<int64_t>(rank));
  return axes;
}

void apply_scales(const NodeInfo& node, const Shape& input, const std::vector<int64_t>& axes,
                  const std::vector<double>& scales, ResizeGeometry& geometry) {
  if (scales.size() != axes.size()) {
    node.fail(ErrorCode::kInvalidArgument, "scales has {} entries for {} axes", scales.size(),
              axes.size());
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    if (!(scales[i] > 0) || !std::isfinite(scales[i])) {
      node.fail(ErrorCode::kInvalidArgument, "scale {} for axis {} must be positive", scales[i], a);
    }
    geometry.scales[a] = scales[i];
    const double size = std::floor(static_cast<double>(input[a]) * scales[i]);
    if (size > 1e12)
      node.fail(ErrorCode::kLimitExceeded, "scale {} makes axis {} too large", scales[i], a);
    geometry.output[a] = static_cast<int64_t>(size);
  }
}

void apply_sizes(const NodeInfo& node, const Shape& input, const std::vector<int64_t>& axes,
                 const std::vector<int64_t>& sizes, ResizeGeometry& geometry) {
  if (sizes.size() != axes.size()) {
    node.fail(ErrorCode::kInvalidArgument, "sizes has {} entries for {} axes", sizes.size(),
              axes.size());
  }
  const std::string policy =
      node.opset() >= 18 ? node.attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    node.fail(ErrorCode::kInvalidModel, "unknown keep_aspect_ratio_policy '{}'", policy);
  }
  double common = policy == "not_larger" ? INFINITY : 0.0;
  for (size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<size_t>(axes[i]);
    if (sizes[i] < 0) node.fail(ErrorCode::kInvalidArgument, "size {} is negative", sizes[i]);
    const double scale =
        input[a] == 0 ? 1.0 : static_cast<double>(sizes[i]) / static_cast<double>(input[a]);
    common = policy == "not_larger" ? std::min(common, scale) : std::max(common, scale);
    geometry.output[a] = sizes[i];
    geometry.scales[a] = scale;
  }
  if (policy == "stretch") return;
  for (int64_t axis : axes) {
    const auto a = static_cast<size_t>(axis);
    geometry.scales[a] = common;
    geometry.output[a] =
        static_cast<int64_t>(std::floor(common * static_cast<double>(input[a]) + 0.5));
  }
}

// Output shape and scales; false when a needed input value is unknown.
template <typename ValueOf>
bool resize_geometry(const NodeInfo& node, const Shape& input, ValueOf value_of,
                     ResizeGeometry& geometry) {
  geometry = {input, std::vector<double>(input.size(), 1.0)};
  std::vector<int64_t> all_axes;
  for (size_t i = 0; i < input.size(); ++i) all_axes.push_back(static_cast<int64_t>(i));
  bool present = false;
  if (is_upsample(node) && node.opset() < 9) {
    const auto floats = node.attr_floats("scales", {});
    apply_scales(node, input, all_axes, std::vector<double>(floats.begin(), floats.end()),
                 geometry);
    return true;
  }
  if (is_legacy(node)) {
    const Tensor* scales = value_of(1, present);
    if (scales == nullptr) return false;
    apply_scales(node, input, all_axes, double_values(*scales), geometry);
    return true;
  }
  if (node.opset() >= 18 && node.attr_int("antialias", 0) != 0) {
    node.fail(ErrorCode::kUnsupported, "antialias=1 is not supported");
  }
  const auto axes = resize_axes(node, input.size());
  const Tensor* scales = value_of(2, present);
  if (present && scales == nullptr) return false;
  if (scales != nullptr && scales->numel() > 0) {
    apply_scales(node, input, axes, double_values(*scales), geometry);
    return true;
  }
  const Tensor* sizes = value_of(3, present);
  if (present && sizes == nullptr) return false;
  if (sizes == nullptr) node.fail(ErrorCode::kInvalidModel, "needs either scales or sizes");
  apply_sizes(node, input, axes, int64_values(node, *sizes, "sizes"), geometry);
  return true;
}

ResizeOptions resize_options(const NodeInfo& node, const KernelContext& ctx, size_t rank) {
  ResizeOptions options;
  options.mode = node.attr_string("mode", "nearest");
  if (options.mode == "bilinear") options.mode = "linear";  // Upsample-7 spelling
  const bool legacy = is_legacy(node);
  if (options.mode != "nearest" && options.mode != "linear" &&
      (legacy || options.mode != "cubic")) {
    node.fail(ErrorCode::kUnsupported, "mode '{}' is not supported", options.mode);
  }
  if (legacy) {
    options.coordinates = "asymmetric";
    options.nearest_mode = "simple";
    return options;
  }
  options.coordinates = node.attr_string("coordinate_transformation_mode", "half_pixel");
  options.nearest_mode = node.attr_string("nearest_mode", "round_prefer_floor");
  options.cubic_a = node.attr_float("cubic_coeff_a", -0.75f);
  options.exclude_outside = node.attr_int("exclude_outside", 0) != 0;
  options.extrapolation = node.attr_float("extrapolation_value", 0.0f);
  if (options.coordinates != "tf_crop_and_resize") return options;
  if (!ctx.has_input(1)) node.fail(ErrorCode::kInvalidModel, "tf_crop_and_resize needs roi");
  const auto roi = double_values(ctx.input(1));
  const auto axes = resize_axes(node, rank);
  if (roi.size() != 2 * axes.size()) {
    node.fail(ErrorCode::kInvalidArgument, "roi has {} entries, expected {}", roi.size(),
              2 * axes.size());
  }
  options.roi.assign(2 * rank, 0.0);
  for (size_t i = 0; i < rank; ++i) options.roi[i + rank] = 1.0;
  for (size_t i = 0; i < axes.size(); ++i) {
    options.roi[static_cast<size_t>(axes[i])] = roi[i];
    options.roi[static_cast<size_t>(axes[i]) + rank] = roi[i + axes.size()];
  }
  return options;
}

// Source coordinate of output coordinate x (ONNX's coordinate_transformation_mode).
// `resized` is the output length as ONNX's reference uses it: scale * input.
double original_coordinate(const NodeInfo& node, const ResizeOptions& options, double x,
                           double scale, double resized, int64_t input, size_t axis, size_t rank) {
  const std::string& mode = options.coordinates;
  const auto in = static_cast<double>(input);
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return resized > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  if (mode == "align_corners") return resized == 1 ? 0.0 : x * (in - 1) / (resized - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize") {
    const double start = options.roi[axis], end = options.roi[axis + rank];
    const double offset = start * (in - 1);
    if (resized == 1) return offset + (end - start) * (in - 1) / 2;
    return offset + x * (end - start) * (in - 1) / (resized - 1);
  }
  node.fail(ErrorCode::kUnsupported, "coordinate_transformation_mode '{}' is not supported", mode);
}

int64_t nearest_index(const NodeInfo& node, const std::string& mode, double x, double scale) {
  const double base = std::floor(x);
  const double ratio = x - base;
  if (mode == "simple") return static_cast<int64_t>(scale < 1 ? std::ceil(x) : std::trunc(x));
  if (mode == "round_prefer_floor") return static_cast<int64_t>(ratio <= 0.5 ? base : base + 1);
  if (mode == "round_prefer_ceil") return static_cast<int64_t>(ratio < 0.5 ? base : base + 1);
  if (mode == "floor") return static_cast<int64_t>(base);
  if (mode == "ceil") return static_cast<int64_t>(std::ceil(x));
  node.fail(ErrorCode::kUnsupported, "nearest_mode '{}' is not supported", mode);
}

std::vector<Tap> interpolation_taps(const ResizeOptions& options, double x, int64_t input) {
  const double base = std::floor(x);
  const double r = x - base;
  const auto first = static_cast<int64_t>(base);
  std::vector<Tap> taps;
  if (options.mode == "linear") {
    taps = {{first, 1 - r}, {first + 1, r}};
  } else {
    const double a = options.cubic_a, s = 1 - r;
    taps = {{first - 1, ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a},
            {first, ((a + 2) * r - (a + 3)) * r * r + 1},
            {first + 1, ((a + 2) * s - (a + 3)) * s * s + 1},
            {first + 2, ((a * (s + 1) - 5 * a) * (s + 1) + 8 * a) * (s + 1) - 4 * a}};
  }
  if (options.exclude_outside) {
    double sum = 0;
    for (Tap& tap : taps) {
      if (tap.index < 0 || tap.index >= input) tap.weight = 0;
      sum += tap.weight;
    }
    if (sum != 0) {
      for (Tap& tap : taps) tap.weight /= sum;
    }
  }
  std::vector<Tap> kept;
  for (Tap tap : taps) {
    tap.index = std::clamp<int64_t>(tap.index, 0, input - 1);  // edge padding
    if (tap.weight != 0) kept.push_back(tap);
  }
  return kept;
}

AxisTaps axis_taps(const NodeInfo& node, const ResizeOptions& options, size_t axis, size_t rank,
                   int64_t input, int64_t output, double scale, bool from_sizes) {
  AxisTaps result{std::vector<std::vector<Tap>>(static_cast<size_t>(output)),
                  std::vector<bool>(static_cast<size_t>(output), false)};
  const double resized =
      from_sizes ? static_cast<double>(output) : scale * static_cast<double>(input);
  for (int64_t out = 0; out < output; ++out) {
    double x = original_coordinate(node, options, static_cast<double>(out), scale, resized, input,
                                   axis, rank);
    const auto at = static_cast<size_t>(out);
    if (!std::isfinite(x))
      node.fail(ErrorCode::kInvalidArgument, "resize coordinate is not finite");
    if (options.coordinates == "tf_crop_and_resize" &&
        (x < 0 || x > static_cast<double>(input - 1))) {
      result.outside[at] = true;
      continue;
    }
    // Beyond a few pixels outside, edge padding makes every x read the edge.
    x = std::clamp(x, -4.0, static_cast<double>(input) + 4.0);
    if (options.mode == "nearest") {
      const int64_t index = nearest_index(node, options.nearest_mode, x, scale);
      result.taps[at] = {{std::clamp<int64_t>(index, 0, input - 1), 1.0}};
    } else {
      result.taps[at] = interpolation_taps(options, x, input);
    }
  }
  return result;
}

bool is_identity(const AxisTaps& axis, int64_t input) {
  if (static_cast<int64_t>(axis.taps.size()) != input) return false;
  for (size_t x = 0; x < axis.taps.size(); ++x) {
    const auto& taps = axis.taps[x];
    if (axis.outside[x] || taps.size() != 1 || taps[0].index != static_cast<int64_t>(x) ||
        taps[0].weight != 1.0) {
      return false;
    }
  }
  return true;
}

// Calls visit(flat output index, per-axis coordinates) for every output element.
template <typename Visit>
void for_each_coordinate(const Shape& shape, Visit visit) {
  const int64_t total = shape_numel(shape);
  std::vector<int64_t> coord(shape.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    visit(i, coord);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
}

bool any_outside(const std::vector<AxisTaps>& axes, const std::vector<int64_t>& coord) {
  for (size_t d = 0; d < axes.size(); ++d) {
    if (axes[d].outside[static_cast<size_t>(coord[d])]) return true;
  }
  return false;
}

template <typename T>
void resize_nearest(const Tensor& data, const std::vector<AxisTaps>& axes, T fill, Tensor& out) {
  const auto strides = shape_strides(data.shape());
  const T* in = data.data<T>();
  T* dst = out.data<T>();
  for_each_coordinate(out.shape(), [&](int64_t i, const std::vector<int64_t>& coord) {
    if (any_outside(axes, coord)) {
      dst[i] = fill;
      return;
    }
    int64_t offset = 0;
    for (size_t d = 0; d < axes.size(); ++d) {
      offset += axes[d].taps[static_cast<size_t>(coord[d])][0].index * strides[d];
    }
    dst[i] = in[offset];
  });
}

// One weighted pass along `axis` of `values` (shape `shape`, updated).
std::vector<double> interpolate_axis(const std::vector<double>& values, Shape& shape, size_t axis,
                                     const AxisTaps& taps) {
  const int64_t outer = dims_product(shape, 0, axis);
  const int64_t inner = dims_product(shape, axis + 1, shape.size());
  const int64_t in_size = shape[axis];
  const auto out_size = static_cast<int64_t>(taps.taps.size());
  std::vector<double> result(static_cast<size_t>(outer * out_size * inner), 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t x = 0; x < out_size; ++x) {
      double* dst = result.data() + (o * out_size + x) * inner;
      for (const Tap& tap : taps.taps[static_cast<size_t>(x)]) {
        const double* src = values.data() + (o * in_size + tap.index) * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] += tap.weight * src[i];
      }
    }
  }
  shape[axis] = out_size;
  return result;
}

template <typename T>
void resize_interpolate(const Tensor& data, const std::vector<AxisTaps>& axes, double fill,
                        Tensor& out) {
  const T* in = data.data<T>();
  std::vector<double> values(static_cast<size_t>(data.numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = to_double(in[i]);
  Shape shape = data.shape();
  for (size_t d = 0; d < axes.size(); ++d) {
    if (!is_identity(axes[d], shape[d])) values = interpolate_axis(values, shape, d, axes[d]);
  }
  T* dst = out.data<T>();
  for_each_coordinate(out.shape(), [&](int64_t i, const std::vector<int64_t>& coord) {
    dst[i] = from_double<T>(any_outside(axes, coord) ? fill : values[static_cast<size_t>(i)]);
  });
}

void resize_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& data = ctx.input(0);
  const size_t rank = data.shape().size();
  ResizeGeometry geometry;
  const bool known = resize_geometry(
      node, data.shape(),
      [&](size_t i, bool& present) {
        present = ctx.has_input(i);
        return present ? &ctx.input(i) : nullptr;
      },
      geometry);
  if (!known) node.fail(ErrorCode::kInvalidModel, "scales input is missing");
  const ResizeOptions options = resize_options(node, ctx, rank);
  Tensor& out = ctx.output(0, data.dtype(), geometry.output);
  if (out.numel() == 0) return;
  if (data.numel() == 0)
    node.fail(ErrorCode::kInvalidArgument, "cannot resize an empty input to {}",
              shape_to_string(geometry.output));
  const bool from_sizes = !is_legacy(node) && !(ctx.has_input(2) && ctx.input(2).numel() > 0);
  std::vector<AxisTaps> axes;
  for (size_t d = 0; d < rank; ++d) {
    axes.push_back(axis_taps(node, options, d, rank, data.shape()[d], geometry.output[d],
                             geometry.scales[d], from_sizes));
  }
  visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      node.fail(ErrorCode::kInvalidModel, "cannot resize strings");
    } else if (options.mode == "nearest") {
      resize_nearest<T>(data, axes, from_double<T>(options.extrapolation), out);
    } else {
      resize_interpolate<T>(data, axes, options.extrapolation, out);
    }
  });
}

OpKernel make_resize_kernel(const char* op_type) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    ResizeGeometry geometry;
    const bool known = resize_geometry(
        ctx.node(), data.shape,
        [&](size_t i, bool& present) {
          present = ctx.has_input(i);
          return present ? ctx.input(i).value : nullptr;
        },
        geometry);
    if (!known) return ctx.set_output_dynamic(0, data.dtype);
    ctx.set_output(0, data.dtype, geometry.output);
  };
  kernel.compute = resize_compute;
  return kernel;
}

}  // namespace

OpKernel resize_kernel() {
  OpKernel kernel = make_resize_kernel("Resize");
  kernel.min_opset = 10;
  return kernel;
}

OpKernel upsample_kernel() {
  OpKernel kernel = make_resize_kernel("Upsample");
  kernel.max_opset = 9;  // deprecated from opset 10
  return kernel;
}

}  // namespace inferlab::kernels::reference
