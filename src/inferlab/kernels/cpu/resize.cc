// Resize by whole-number factors with nearest neighbours ("asymmetric"
// coordinates, floor rounding: what PaddleOCR's and most detection heads'
// upsampling uses, and every Resize before opset 11; roi only matters to
// tf_crop_and_resize, so it is ignored here as ONNX says): each output element
// reads input index output_index / factor, so the copy is of whole rows,
// each duplicated `factor` times, and of runs of the trailing axes that are
// not resized (the channels of a channels-last tensor) at once. Any other
// Resize — other modes, coordinates or rounding, fractional factors, roi,
// axes, antialias, other types — is left to the reference kernel.
#include <cstring>
#include <vector>

#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

constexpr size_t kMaxRank = 8;

struct Upsampling {
  size_t rank = 0;
  int64_t input[kMaxRank] = {};
  int64_t factor[kMaxRank] = {};
  int64_t output[kMaxRank] = {};
  int64_t input_stride[kMaxRank] = {};
  int64_t output_stride[kMaxRank] = {};
  size_t copied_axes = 0;  // axes [copied_axes, rank) are not resized: one run each
};

bool nearest_floor_asymmetric(const NodeInfo& node) {
  if (node.opset() < 11) return node.attr_string("mode", "nearest") == "nearest";
  return node.attr_string("mode", "nearest") == "nearest" &&
         node.attr_string("coordinate_transformation_mode", "half_pixel") == "asymmetric" &&
         node.attr_string("nearest_mode", "round_prefer_floor") == "floor" &&
         !node.has_attr("axes") && node.attr_int("antialias", 0) == 0 &&
         node.attr_string("keep_aspect_ratio_policy", "stretch") == "stretch";
}

// The whole-number factor of every axis from the scales (or sizes) input;
// false when one is not a whole number.
bool whole_factors(const KernelContext& ctx, const Shape& x, Upsampling& u) {
  const bool legacy = ctx.node().opset() < 11;
  const size_t scales_index = legacy ? 1 : 2;
  const bool has_scales = ctx.has_input(scales_index) && ctx.input(scales_index).numel() > 0;
  const bool has_sizes = !legacy && ctx.has_input(3) && ctx.input(3).numel() > 0;
  if (has_scales == has_sizes) return false;
  const Tensor& per_axis = ctx.input(has_scales ? scales_index : 3);
  if (per_axis.numel() != static_cast<int64_t>(x.size())) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const double value = per_axis.element_as_double(static_cast<int64_t>(i));
    int64_t factor = 0;
    if (has_scales) {
      factor = static_cast<int64_t>(value);
      if (static_cast<double>(factor) != value) return false;
    } else {
      const auto size = static_cast<int64_t>(value);
      if (x[i] == 0 || size % x[i] != 0) return false;
      factor = size / x[i];
    }
    if (factor < 1) return false;
    u.factor[i] = factor;
  }
  return true;
}

void plan(const Shape& x, Upsampling& u) {
  u.rank = x.size();
  int64_t in_stride = 1;
  int64_t out_stride = 1;
  for (size_t i = u.rank; i-- > 0;) {
    u.input[i] = x[i];
    u.output[i] = x[i] * u.factor[i];
    u.input_stride[i] = in_stride;
    u.output_stride[i] = out_stride;
    in_stride *= u.input[i];
    out_stride *= u.output[i];
  }
  u.copied_axes = u.rank;
  while (u.copied_axes > 0 && u.factor[u.copied_axes - 1] == 1) --u.copied_axes;
}

void upsample_rows(const Upsampling& u, size_t axis, const float* src, float* dst, int64_t begin,
                   int64_t end);

// Output block of `axis` (all axes from it on) for the input block at `src`.
void upsample(const Upsampling& u, size_t axis, const float* src, float* dst) {
  if (axis == u.copied_axes) {
    const int64_t run = axis == u.rank ? 1 : u.input_stride[axis] * u.input[axis];
    std::memcpy(dst, src, static_cast<size_t>(run) * sizeof(float));
    return;
  }
  const int64_t factor = u.factor[axis];
  if (axis + 1 == u.copied_axes && u.copied_axes == u.rank) {
    // The innermost axis is resized: each element repeated.
    for (int64_t i = 0; i < u.input[axis]; ++i) {
      for (int64_t j = 0; j < factor; ++j) dst[i * factor + j] = src[i];
    }
    return;
  }
  upsample_rows(u, axis, src, dst, 0, u.input[axis]);
}

// Input indices [begin, end) of `axis`, an axis before copied_axes whose
// elements are blocks (not the innermost resized axis).
void upsample_rows(const Upsampling& u, size_t axis, const float* src, float* dst, int64_t begin,
                   int64_t end) {
  const int64_t factor = u.factor[axis];
  const int64_t block = u.output_stride[axis];
  for (int64_t i = begin; i < end; ++i) {
    float* first = dst + i * factor * block;
    upsample(u, axis + 1, src + i * u.input_stride[axis], first);
    for (int64_t j = 1; j < factor; ++j) {
      std::memcpy(first + j * block, first, static_cast<size_t>(block) * sizeof(float));
    }
  }
}

// upsample(u, 0, ...) split over the team at the first axis with more than
// one index (the leading axes of size 1 and factor 1 only pass through).
void upsample_parallel(const Upsampling& u, const float* src, float* dst) {
  size_t axis = 0;
  while (axis + 1 < u.copied_axes && u.input[axis] == 1 && u.factor[axis] == 1) ++axis;
  const bool rows = axis < u.copied_axes && !(axis + 1 == u.copied_axes && u.copied_axes == u.rank);
  if (!rows) {
    upsample(u, 0, src, dst);
    return;
  }
  const int64_t cost = u.output_stride[axis] * u.factor[axis];
  parallel_ranges(u.input[axis], cost, 1, [&](int64_t begin, int64_t end) {
    upsample_rows(u, axis, src, dst, begin, end);
  });
}

bool resize_nearest(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat32 || x.rank() == 0 || x.rank() > int64_t{kMaxRank} ||
      x.numel() == 0 || !nearest_floor_asymmetric(ctx.node())) {
    return false;
  }
  Upsampling u;
  if (!whole_factors(ctx, x.shape(), u)) return false;
  plan(x.shape(), u);
  Shape output(u.output, u.output + u.rank);
  Tensor& y = ctx.output(0, DataType::kFloat32, output);
  upsample_parallel(u, x.data<float>(), y.data<float>());
  return true;
}

}  // namespace

void add_resize_kernel(OpRegistry& registry) {
  replace_compute(registry, "", "Resize", resize_nearest);
}

}  // namespace inferlab::kernels::cpu
