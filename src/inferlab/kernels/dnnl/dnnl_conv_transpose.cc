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
#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

// Upsampling by a transposed convolution whose stride equals its kernel
// (no overlap: PaddleOCR's and U-Net-style heads), with no padding,
// dilation or groups: each input pixel becomes its own kh x kw output
// block. InferLab's vectorized kernel (cpu::KernelTable::block_upsample_f32)
// writes the output rows directly. oneDNN's deconvolution ran these several
// times slower, and a oneDNN matmul into a column buffer plus a scatter
// pass 3.5x slower on PaddleOCR's 24-channel 160x160 -> 320x320 head: the
// product has only C = 24 terms, so the time goes to moving the output.
struct BlockUpsampling {
  const cpu::KernelTable* table = nullptr;  // set when this path is used
  std::shared_ptr<AlignedBytes> weights;    // [kh, M, C, kw]
  std::vector<float> zero_bias;             // M zeros, for a node without bias
  cpu::BlockUpsampleShape shape;
  int64_t batch = 0;
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
                                                             const reference::WindowGeometry& g,
                                                             const cpu::KernelTable& table) {
  const Shape& x = ctx.input(0).shape;
  const Shape& w = ctx.input(1).shape;
  auto state = std::make_unique<ConvTransposeState>();
  BlockUpsampling& u = state->upsampling;
  u.table = &table;
  u.batch = x[0];
  u.shape = {x[1], w[1], x[2], x[3], g.kernel[0], g.kernel[1]};
  // ONNX's W [C, M, kh, kw] read as [kh, M, C, kw]: a strided view oneDNN reorders.
  const cpu::BlockUpsampleShape& s = u.shape;
  const dnnl::memory::dims dims{s.kernel_h, s.out_channels, s.channels, s.kernel_w};
  const dnnl::memory::desc onnx_view(
      dims, dnnl::memory::data_type::f32,
      dnnl::memory::dims{s.kernel_w, s.kernel_h * s.kernel_w,
                         s.out_channels * s.kernel_h * s.kernel_w, 1});
  u.weights = packed_weights(
      ctx, 1, onnx_view,
      dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::abcd));
  state->has_bias = ctx.has_input(2);
  if (!state->has_bias) u.zero_bias.assign(static_cast<size_t>(s.out_channels), 0.0f);
  state->output_shape = ctx.output(0).shape;
  return state;
}

void run_block_upsampling(const ConvTransposeState& state, KernelContext& ctx) {
  const BlockUpsampling& u = state.upsampling;
  const cpu::BlockUpsampleShape& s = u.shape;
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  const float* bias = state.has_bias ? ctx.input(2).data<float>() : u.zero_bias.data();
  const auto* weights = reinterpret_cast<const float*>(u.weights->data());
  const int64_t in_image = s.channels * s.height * s.width;
  const int64_t out_image = s.out_channels * s.height * s.kernel_h * s.width * s.kernel_w;
  const int64_t cost_per_row = out_image / s.height * s.channels;
  const int64_t per_thread = s.channels * cpu::block_upsample_stride(s.width);
  float* scratch = ctx.scratch<float>(static_cast<size_t>(omp_get_max_threads() * per_thread));
  for (int64_t n = 0; n < u.batch; ++n) {
    const float* x = ctx.input(0).data<float>() + n * in_image;
    float* out = y.data<float>() + n * out_image;
    cpu::parallel_ranges(s.height, cost_per_row, 1, [&](int64_t begin, int64_t end) {
      u.table->block_upsample_f32(cpu::UnaryKind::kIdentity, {}, s, x, weights, bias, out, begin,
                                  end, scratch + omp_get_thread_num() * per_thread);
    });
  }
}

std::unique_ptr<KernelState> prepare_conv_transpose(PrepareContext& ctx,
                                                    const cpu::KernelTable& table) {
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
  if (is_block_upsampling(node, x.shape, y, g)) return prepare_block_upsampling(ctx, g, table);

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
  ctx.expect_scratch(state->scratch_bytes);
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
  if (state.upsampling.table != nullptr) return run_block_upsampling(state, ctx);
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

void add_dnnl_conv_transpose_kernel(OpRegistry& registry, const cpu::KernelTable& table) {
  registry.add(on_dnnl<ConvTransposeState>(
      reference::conv_transpose_kernel(),
      [&table](PrepareContext& ctx) { return prepare_conv_transpose(ctx, table); },
      run_conv_transpose));
}

}  // namespace inferlab::kernels::dnnl_backend
