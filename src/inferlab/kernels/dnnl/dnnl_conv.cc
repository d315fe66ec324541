// Conv and ai.inferlab FusedConv on oneDNN. When a run plan is built, the
// convolution primitive is created for the plan's shapes with every layout
// left to oneDNN (format_tag::any), the weights are reordered once into the
// layout it picks (kept in the node's cache, shared by every plan of the
// session), and the activation and the residual add become post-ops: one
// primitive call per fused node. A channels-last FusedConv (the layout
// pass's) reads and writes NHWC, which oneDNN's brgconv computes directly; a
// channels-first node reorders its input and output around the call to the
// layout the convolution picks. Without a plan,
// or for what oneDNN is not asked to do (non-float types), the reference
// kernel runs.
#include "inferlab/kernels/dnnl/dnnl_kernels.h"

#include <cstring>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

using tag = dnnl::memory::format_tag;
constexpr size_t kResidual = 3;

struct ConvState : KernelState {
  DnnlCall conv;
  LayoutAdapter layouts;      // user X and Y <-> the convolution's layouts
  DnnlCall residual_reorder;  // Z -> the convolution's destination (sum post-op)
  std::shared_ptr<AlignedBytes> weights;
  const void* bias = nullptr;
  Shape output_shape;
  size_t scratch_bytes = 0;
};

// Weights as ONNX stores them: [O, I/g, k...], or oneDNN's grouped
// [g, O/g, I/g, k...] view of the same bytes.
dnnl::memory::desc user_weights_desc(const Shape& w, int64_t group) {
  if (group == 1) return plain_desc(w);
  Shape grouped = {group, w[0] / group};
  grouped.insert(grouped.end(), w.begin() + 1, w.end());
  return plain_desc(grouped);
}

std::unique_ptr<KernelState> prepare_conv(PrepareContext& ctx, bool fused) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& x_facts = ctx.input(0);
  const ValueFacts& w = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  const bool has_residual = fused && ctx.has_input(kResidual);
  if (x_facts.dtype != DataType::kFloat32 || w.value == nullptr || x_facts.shape.size() < 3 ||
      x_facts.shape.size() > 5 || (has_bias && ctx.input(2).value == nullptr) ||
      ctx.output(0).dtype != DataType::kFloat32) {
    return nullptr;  // the reference kernel handles it
  }
  const bool channels_last = fused && layout::is_channels_last(node);
  // oneDNN's dims are always N, C, spatial...; the layout is in the desc.
  const Shape x = channels_last ? layout::to_channels_first(x_facts.shape) : x_facts.shape;
  const Shape y =
      channels_last ? layout::to_channels_first(ctx.output(0).shape) : ctx.output(0).shape;
  const int64_t group = node.attr_int("group", 1);
  const Shape spatial(x.begin() + 2, x.end());
  const reference::WindowGeometry g = reference::resolve_window(
      node, spatial, reference::kernel_from_weights(node, w.shape), reference::WindowOptions{});

  const dnnl::memory::desc user_src = channels_last ? channels_last_desc(x) : plain_desc(x);
  const dnnl::memory::desc user_dst = channels_last ? channels_last_desc(y) : plain_desc(y);
  const dnnl::memory::desc user_weights = user_weights_desc(w.shape, group);
  const auto any = [](const dnnl::memory::desc& desc) {
    return dnnl::memory::desc(desc.dims(), dnnl::memory::data_type::f32, tag::any);
  };
  // Channels-last activations are asked for as they are: the layout pass
  // chose them so that no reorder runs between convolutions.
  const auto activation_desc = [&](const dnnl::memory::desc& user) {
    return channels_last ? user : any(user);
  };
  dnnl::memory::dims dilations;
  for (int64_t d : g.dilations) dilations.push_back(d - 1);  // oneDNN counts the gaps
  const dnnl::memory::desc bias_desc =
      has_bias ? plain_desc(ctx.input(2).shape) : dnnl::memory::desc();
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      activation_desc(user_src), any(user_weights), bias_desc, activation_desc(user_dst),
      to_dims(g.strides), dilations, to_dims(g.pads_begin), to_dims(g.pads_end));

  dnnl::post_ops ops;
  if (has_residual) ops.append_sum(1.0f);  // Y = act(conv + Z): the sum comes first
  if (fused) append_activation(fused::parse_activation(node), ops);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_forward::primitive_desc pd(desc, attr, cpu_engine());

  auto state = std::make_unique<ConvState>();
  state->weights = packed_weights(ctx, 1, user_weights, pd.weights_desc());
  if (has_bias) state->bias = ctx.input(2).value->raw_data();
  state->output_shape = ctx.output(0).shape;
  state->layouts = LayoutAdapter(user_src, pd.src_desc(), pd.dst_desc(), user_dst,
                                 align_scratch(pd.scratchpad_desc().get_size()));
  if (has_residual) state->residual_reorder = make_reorder(user_dst, pd.dst_desc());
  state->scratch_bytes = state->layouts.end();
  std::vector<std::pair<int, dnnl::memory::desc>> arguments = {
      {DNNL_ARG_SRC, pd.src_desc()},
      {DNNL_ARG_WEIGHTS, pd.weights_desc()},
      {DNNL_ARG_DST, pd.dst_desc()},
      {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}};
  if (has_bias) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state->conv = DnnlCall(dnnl::convolution_forward(pd), arguments);
  return state;
}

void run_conv(const ConvState& state, KernelContext& ctx, bool fused) {
  const NodeInfo& node = ctx.node();
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  auto* scratch = static_cast<std::byte*>(ctx.scratch_bytes(state.scratch_bytes));
  const void* src = state.layouts.source(ctx.input(0).raw_data(), scratch, node);
  void* dst = state.layouts.destination(y.raw_data(), scratch);
  if (fused && ctx.has_input(kResidual)) {
    const Tensor& z = ctx.input(kResidual);
    if (state.residual_reorder.empty()) {
      if (z.raw_data() != dst) std::memcpy(dst, z.raw_data(), z.nbytes());
    } else {
      state.residual_reorder.bind(DNNL_ARG_SRC, z.raw_data());
      state.residual_reorder.bind(DNNL_ARG_DST, dst);
      state.residual_reorder.execute(node);
    }
  }
  state.conv.bind(DNNL_ARG_SRC, src);
  state.conv.bind(DNNL_ARG_WEIGHTS, state.weights->data());
  state.conv.bind(DNNL_ARG_DST, dst);
  state.conv.bind(DNNL_ARG_SCRATCHPAD, scratch);
  if (state.bias != nullptr) state.conv.bind(DNNL_ARG_BIAS, state.bias);
  state.conv.execute(node);
  state.layouts.finish(y.raw_data(), scratch, node);
}

OpKernel with_dnnl(OpKernel kernel, bool fused) {
  return on_dnnl<ConvState>(
      std::move(kernel), [fused](PrepareContext& ctx) { return prepare_conv(ctx, fused); },
      [fused](ConvState& state, KernelContext& ctx) { run_conv(state, ctx, fused); });
}

}  // namespace

void add_dnnl_conv_kernels(OpRegistry& registry) {
  registry.add(with_dnnl(reference::conv_kernel(), false));
  registry.add(with_dnnl(fused::fused_conv_kernel(), true));
}

}  // namespace inferlab::kernels::dnnl_backend
