// ConvTranspose on oneDNN's deconvolution_forward. When a run plan is built,
// the primitive is created for the plan's shapes with the weights' layout
// left to oneDNN (format_tag::any) and the activations channels-last, and
// the weights — ONNX's [C_in, C_out/group, k...],
// which is oneDNN's [C_out, C_in, k...] (or grouped [g, C_out/g, C_in/g,
// k...]) read with other strides, no flip — are reordered once into the
// layout it picks (the node's cache). The geometry is the reference kernel's
// own (resolve_transposed_window: strides, dilations, pads, output_padding,
// auto_pad, output_shape); output_padding needs no oneDNN parameter, since
// the destination's size carries it, and oneDNN refuses sizes it cannot
// reach (output_padding >= stride, an output_shape beyond what the input
// reaches): those, non-float types and weights known only at run time stay
// on the reference kernel. Activations are plain (NCHW) between nodes, so
// they are reordered to and from channels-last around the call: oneDNN's
// jit deconvolution ran PaddleOCR's two upsampling ConvTransposes in 7.2 ms
// that way against 8.5 ms with the blocked layout it picks by itself.
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

// Upsampling by a transposed convolution whose stride equals its kernel
// (no overlap: PaddleOCR's and U-Net-style heads), with no padding,
// dilation or groups, is one matrix product per image — columns
// [M * kh * kw, H * W] = W^T X — and a scatter of each column into its
// kh x kw output block (plus the bias). oneDNN's deconvolution ran these
// several times slower.
struct BlockUpsampling {
  DnnlCall matmul;
  std::shared_ptr<AlignedBytes> weights;  // W^T: [M * kh * kw, C], rows contiguous
  int64_t batch = 0, in_channels = 0, out_channels = 0, height = 0, width = 0;
  int64_t kernel_h = 0, kernel_w = 0;
  size_t columns_offset = 0;  // in the node's scratch, after the scratchpad
};

struct ConvTransposeState : KernelState {
  BlockUpsampling upsampling;  // used when upsampling.matmul is not empty
  DnnlCall deconv;
  LayoutAdapter layouts;  // user X and Y <-> the primitive's layouts
  std::shared_ptr<AlignedBytes> weights;
  bool has_bias = false;
  Shape output_shape;
  size_t scratch_bytes = 0;
};

// ONNX's weights [C, M/g, k...] as oneDNN's deconvolution weights: dims
// [M, C, k...] (grouped: [g, M/g, C/g, k...]) over the same bytes.
dnnl::memory::desc user_weights_desc(const Shape& w, int64_t group) {
  const int64_t in_per_group = w[0] / group;
  const int64_t out_per_group = w[1];
  const Shape kernel(w.begin() + 2, w.end());
  const int64_t taps = shape_numel(kernel);
  dnnl::memory::dims dims;
  dnnl::memory::dims strides;
  if (group > 1) {
    dims = {group, out_per_group, in_per_group};
    strides = {in_per_group * out_per_group * taps, taps, out_per_group * taps};
  } else {
    dims = {out_per_group, in_per_group};
    strides = {taps, out_per_group * taps};
  }
  int64_t stride = taps;
  for (int64_t k : kernel) {
    stride /= k;
    dims.push_back(k);
    strides.push_back(stride);
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

bool is_block_upsampling(const NodeInfo& node, const Shape& x, const Shape& y,
                         const reference::WindowGeometry& g) {
  if (x.size() != 4 || node.attr_int("group", 1) != 1) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (g.strides[i] != g.kernel[i] || g.dilations[i] != 1 || g.pads_begin[i] != 0 ||
        g.pads_end[i] != 0 || y[i + 2] != x[i + 2] * g.kernel[i]) {
      return false;
    }
  }
  return true;
}

std::unique_ptr<ConvTransposeState> prepare_block_upsampling(PrepareContext& ctx,
                                                             const reference::WindowGeometry& g) {
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  auto state = std::make_unique<ConvTransposeState>();
  BlockUpsampling& u = state->upsampling;
  u.batch = x[0];
  u.in_channels = x[1];
  u.height = x[2];
  u.width = x[3];
  u.out_channels = w[1];
  u.kernel_h = g.kernel[0];
  u.kernel_w = g.kernel[1];
  const int64_t rows = u.out_channels * u.kernel_h * u.kernel_w;
  const int64_t pixels = u.height * u.width;
  // ONNX's W [C, M, kh, kw] is [C, rows] row-major: W^T is a strided view.
  const dnnl::memory::desc transposed(dnnl::memory::dims{rows, u.in_channels},
                                      dnnl::memory::data_type::f32, dnnl::memory::dims{1, rows});
  const dnnl::memory::desc packed = plain_desc(Shape{rows, u.in_channels});
  u.weights = packed_weights(ctx, 1, transposed, packed);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::memory::desc image = plain_desc(Shape{u.in_channels, pixels});
  const dnnl::memory::desc columns = plain_desc(Shape{rows, pixels});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(packed, image, columns), attr,
                                        cpu_engine());
  u.columns_offset = align_scratch(pd.scratchpad_desc().get_size());
  state->scratch_bytes = u.columns_offset + columns.get_size();
  state->has_bias = ctx.has_input(2);
  state->output_shape = ctx.output(0).shape;
  u.matmul = DnnlCall(dnnl::matmul(pd), {{DNNL_ARG_SRC, packed},
                                         {DNNL_ARG_WEIGHTS, image},
                                         {DNNL_ARG_DST, columns},
                                         {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}});
  return state;
}

// y[n, m, h * kh + i, v * kw + j] = columns[(m * kh + i) * kw + j, h * W + v] + bias[m]
void scatter_blocks(const BlockUpsampling& u, const float* columns, const float* bias, float* y) {
  const int64_t pixels = u.height * u.width;
  const int64_t out_width = u.width * u.kernel_w;
#pragma omp parallel for schedule(static)
  for (int64_t m = 0; m < u.out_channels; ++m) {
    const float b = bias != nullptr ? bias[m] : 0.0f;
    float* plane = y + m * pixels * u.kernel_h * u.kernel_w;
    for (int64_t h = 0; h < u.height; ++h) {
      for (int64_t i = 0; i < u.kernel_h; ++i) {
        float* row = plane + (h * u.kernel_h + i) * out_width;
        for (int64_t j = 0; j < u.kernel_w; ++j) {
          const float* source =
              columns + ((m * u.kernel_h + i) * u.kernel_w + j) * pixels + h * u.width;
          for (int64_t v = 0; v < u.width; ++v) row[v * u.kernel_w + j] = source[v] + b;
        }
      }
    }
  }
}

void run_block_upsampling(const ConvTransposeState& state, KernelContext& ctx) {
  const BlockUpsampling& u = state.upsampling;
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  auto* scratch = static_cast<std::byte*>(ctx.scratch_bytes(state.scratch_bytes));
  auto* columns = reinterpret_cast<float*>(scratch + u.columns_offset);
  const float* bias = state.has_bias ? ctx.input(2).data<float>() : nullptr;
  const int64_t pixels = u.height * u.width;
  const int64_t plane = u.out_channels * pixels * u.kernel_h * u.kernel_w;
  for (int64_t n = 0; n < u.batch; ++n) {
    u.matmul.bind(DNNL_ARG_SRC, u.weights->data());
    u.matmul.bind(DNNL_ARG_WEIGHTS, ctx.input(0).data<float>() + n * u.in_channels * pixels);
    u.matmul.bind(DNNL_ARG_DST, columns);
    u.matmul.bind(DNNL_ARG_SCRATCHPAD, scratch);
    u.matmul.execute(ctx.node());
    scatter_blocks(u, columns, bias, y.data<float>() + n * plane);
  }
}

std::unique_ptr<KernelState> prepare_conv_transpose(PrepareContext& ctx) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& x = ctx.input(0);
  const ValueFacts& w = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  if (x.dtype != DataType::kFloat32 || w.dtype != DataType::kFloat32 || w.value == nullptr ||
      x.shape.size() < 3 || x.shape.size() > 5 ||
      (has_bias && ctx.input(2).dtype != DataType::kFloat32) ||
      ctx.output(0).dtype != DataType::kFloat32) {
    return nullptr;  // the reference kernel handles it
  }
  const int64_t group = node.attr_int("group", 1);
  const reference::WindowGeometry g =
      reference::resolve_transposed_window(node, Shape(x.shape.begin() + 2, x.shape.end()),
                                           reference::kernel_from_weights(node, w.shape));
  const Shape& y = ctx.output(0).shape;
  if (is_block_upsampling(node, x.shape, y, g)) return prepare_block_upsampling(ctx, g);

  const dnnl::memory::desc user_src = plain_desc(x.shape);
  const dnnl::memory::desc user_dst = plain_desc(y);
  const dnnl::memory::desc user_weights = user_weights_desc(w.shape, group);
  const auto any = [](const dnnl::memory::desc& desc) {
    return dnnl::memory::desc(desc.dims(), dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::any);
  };
  dnnl::memory::dims dilations;
  for (int64_t d : g.dilations) dilations.push_back(d - 1);  // oneDNN counts the gaps
  const dnnl::memory::desc bias_desc =
      has_bias ? plain_desc(ctx.input(2).shape) : dnnl::memory::desc();
  const dnnl::deconvolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
      channels_last_desc(x.shape), any(user_weights), bias_desc, channels_last_desc(y),
      to_dims(g.strides), dilations, to_dims(g.pads_begin), to_dims(g.pads_end));
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::deconvolution_forward::primitive_desc pd(desc, attr, cpu_engine());

  auto state = std::make_unique<ConvTransposeState>();
  state->weights = packed_weights(ctx, 1, user_weights, pd.weights_desc());
  state->has_bias = has_bias;
  state->output_shape = y;
  state->layouts = LayoutAdapter(user_src, pd.src_desc(), pd.dst_desc(), user_dst,
                                 align_scratch(pd.scratchpad_desc().get_size()));
  state->scratch_bytes = state->layouts.end();
  std::vector<std::pair<int, dnnl::memory::desc>> arguments = {
      {DNNL_ARG_SRC, pd.src_desc()},
      {DNNL_ARG_WEIGHTS, pd.weights_desc()},
      {DNNL_ARG_DST, pd.dst_desc()},
      {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}};
  if (has_bias) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state->deconv = DnnlCall(dnnl::deconvolution_forward(pd), arguments);
  return state;
}

void run_conv_transpose(ConvTransposeState& state, KernelContext& ctx) {
  if (!state.upsampling.matmul.empty()) return run_block_upsampling(state, ctx);
  const NodeInfo& node = ctx.node();
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  auto* scratch = static_cast<std::byte*>(ctx.scratch_bytes(state.scratch_bytes));
  state.deconv.bind(DNNL_ARG_SRC, state.layouts.source(ctx.input(0).raw_data(), scratch, node));
  state.deconv.bind(DNNL_ARG_WEIGHTS, state.weights->data());
  void* dst = state.layouts.destination(y.raw_data(), scratch);
  state.deconv.bind(DNNL_ARG_DST, dst);
  state.deconv.bind(DNNL_ARG_SCRATCHPAD, scratch);
  // The bias is read where it lies (a constant, or a value computed at run time).
  if (state.has_bias) state.deconv.bind(DNNL_ARG_BIAS, ctx.input(2).raw_data());
  state.deconv.execute(node);
  state.layouts.finish(y.raw_data(), scratch, node);
}

}  // namespace

void add_dnnl_conv_transpose_kernel(OpRegistry& registry) {
  registry.add(on_dnnl<ConvTransposeState>(reference::conv_transpose_kernel(),
                                           prepare_conv_transpose, run_conv_transpose));
}

}  // namespace inferlab::kernels::dnnl_backend
