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
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

struct ConvTransposeState : KernelState {
  DnnlCall deconv;
  DnnlCall src_reorder;  // user X -> the primitive's layout (when they differ)
  DnnlCall dst_reorder;  // the primitive's layout -> user Y
  std::shared_ptr<AlignedBytes> weights;
  bool has_bias = false;
  Shape output_shape;
  size_t src_offset = 0;  // in the node's scratch, after oneDNN's scratchpad
  size_t dst_offset = 0;
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
  state->weights = packed_weights(ctx, user_weights, w.value->raw_data(), pd.weights_desc());
  state->has_bias = has_bias;
  state->output_shape = y;
  state->src_reorder = make_reorder(user_src, pd.src_desc());
  state->dst_reorder = make_reorder(pd.dst_desc(), user_dst);
  size_t offset = align_scratch(pd.scratchpad_desc().get_size());
  if (!state->src_reorder.empty()) {
    state->src_offset = offset;
    offset += align_scratch(pd.src_desc().get_size());
  }
  if (!state->dst_reorder.empty()) {
    state->dst_offset = offset;
    offset += align_scratch(pd.dst_desc().get_size());
  }
  state->scratch_bytes = offset;
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
  const NodeInfo& node = ctx.node();
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  auto* scratch = static_cast<std::byte*>(ctx.scratch_bytes(state.scratch_bytes));
  const void* src = ctx.input(0).raw_data();
  if (!state.src_reorder.empty()) {
    state.src_reorder.bind(DNNL_ARG_SRC, src);
    state.src_reorder.bind(DNNL_ARG_DST, scratch + state.src_offset);
    state.src_reorder.execute(node);
    src = scratch + state.src_offset;
  }
  void* dst = state.dst_reorder.empty() ? y.raw_data() : scratch + state.dst_offset;
  state.deconv.bind(DNNL_ARG_SRC, src);
  state.deconv.bind(DNNL_ARG_WEIGHTS, state.weights->data());
  state.deconv.bind(DNNL_ARG_DST, dst);
  state.deconv.bind(DNNL_ARG_SCRATCHPAD, scratch);
  // The bias is read where it lies (a constant, or a value computed at run time).
  if (state.has_bias) state.deconv.bind(DNNL_ARG_BIAS, ctx.input(2).raw_data());
  state.deconv.execute(node);
  if (!state.dst_reorder.empty()) {
    state.dst_reorder.bind(DNNL_ARG_SRC, dst);
    state.dst_reorder.bind(DNNL_ARG_DST, y.raw_data());
    state.dst_reorder.execute(node);
  }
}

}  // namespace

void add_dnnl_conv_transpose_kernel(OpRegistry& registry) {
  registry.add(on_dnnl<ConvTransposeState>(reference::conv_transpose_kernel(),
                                           prepare_conv_transpose, run_conv_transpose));
}

}  // namespace inferlab::kernels::dnnl_backend
