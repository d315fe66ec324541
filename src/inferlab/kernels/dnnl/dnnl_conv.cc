// Conv and ai.inferlab FusedConv on oneDNN. When a run plan is built, the
// convolution primitive is created for the plan's shapes with every layout
// left to oneDNN (format_tag::any), the weights are reordered once into the
// layout it picks (kept in the node's cache, shared by every plan of the
// session), and the activation and the residual add become post-ops: one
// primitive call per fused node. Activations stay plain NCHW between nodes
// for now, so a convolution that prefers a blocked layout reorders its input
// and output around the call (the layout pass removes those). Without a plan,
// or for what oneDNN is not asked to do (non-float types), the reference
// kernel runs.
#include "inferlab/kernels/dnnl/dnnl_kernels.h"

#include <cstring>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

using tag = dnnl::memory::format_tag;
constexpr size_t kResidual = 3;

struct ConvState : KernelState {
  DnnlCall conv;
  DnnlCall src_reorder;       // user X -> the convolution's layout (when they differ)
  DnnlCall dst_reorder;       // the convolution's layout -> user Y
  DnnlCall residual_reorder;  // Z -> the convolution's destination (sum post-op)
  std::shared_ptr<AlignedBytes> weights;
  const void* bias = nullptr;
  Shape output_shape;
  size_t scratchpad_bytes = 0;
  size_t src_offset = 0;  // in the node's scratch
  size_t dst_offset = 0;
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
  const ValueFacts& x = ctx.input(0);
  const ValueFacts& w = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  const bool has_residual = fused && ctx.has_input(kResidual);
  if (x.dtype != DataType::kFloat32 || w.value == nullptr || x.shape.size() < 3 ||
      x.shape.size() > 5 || (has_bias && ctx.input(2).value == nullptr) ||
      ctx.output(0).dtype != DataType::kFloat32) {
    return nullptr;  // the reference kernel handles it
  }
  const int64_t group = node.attr_int("group", 1);
  const Shape spatial(x.shape.begin() + 2, x.shape.end());
  const reference::WindowGeometry g = reference::resolve_window(
      node, spatial, reference::kernel_from_weights(node, w.shape), reference::WindowOptions{});
  const Shape& y = ctx.output(0).shape;

  const dnnl::memory::desc user_src = plain_desc(x.shape);
  const dnnl::memory::desc user_dst = plain_desc(y);
  const dnnl::memory::desc user_weights = user_weights_desc(w.shape, group);
  const auto any = [](const dnnl::memory::desc& desc) {
    return dnnl::memory::desc(desc.dims(), dnnl::memory::data_type::f32, tag::any);
  };
  dnnl::memory::dims dilations;
  for (int64_t d : g.dilations) dilations.push_back(d - 1);  // oneDNN counts the gaps
  const dnnl::memory::desc bias_desc =
      has_bias ? plain_desc(ctx.input(2).shape) : dnnl::memory::desc();
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(user_src),
      any(user_weights), bias_desc, any(user_dst), to_dims(g.strides), dilations,
      to_dims(g.pads_begin), to_dims(g.pads_end));

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
  state->output_shape = y;
  state->src_reorder = make_reorder(user_src, pd.src_desc());
  state->dst_reorder = make_reorder(pd.dst_desc(), user_dst);
  if (has_residual) state->residual_reorder = make_reorder(user_dst, pd.dst_desc());
  state->scratchpad_bytes = align_scratch(pd.scratchpad_desc().get_size());
  size_t offset = state->scratchpad_bytes;
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
  state->conv = DnnlCall(dnnl::convolution_forward(pd), arguments);
  return state;
}

void run_conv(ConvState& calls, KernelContext& ctx, bool fused) {
  const ConvState& state = calls;
  const Tensor& x = ctx.input(0);
  const NodeInfo& node = ctx.node();
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  auto* scratch = static_cast<std::byte*>(ctx.scratch_bytes(state.scratch_bytes));
  const void* src = x.raw_data();
  if (!calls.src_reorder.empty()) {
    calls.src_reorder.bind(DNNL_ARG_SRC, src);
    calls.src_reorder.bind(DNNL_ARG_DST, scratch + state.src_offset);
    calls.src_reorder.execute(node);
    src = scratch + state.src_offset;
  }
  void* dst = calls.dst_reorder.empty() ? y.raw_data() : scratch + state.dst_offset;
  if (fused && ctx.has_input(kResidual)) {
    const Tensor& z = ctx.input(kResidual);
    if (calls.residual_reorder.empty()) {
      if (z.raw_data() != dst) std::memcpy(dst, z.raw_data(), z.nbytes());
    } else {
      calls.residual_reorder.bind(DNNL_ARG_SRC, z.raw_data());
      calls.residual_reorder.bind(DNNL_ARG_DST, dst);
      calls.residual_reorder.execute(node);
    }
  }
  calls.conv.bind(DNNL_ARG_SRC, src);
  calls.conv.bind(DNNL_ARG_WEIGHTS, state.weights->data());
  calls.conv.bind(DNNL_ARG_DST, dst);
  calls.conv.bind(DNNL_ARG_SCRATCHPAD, scratch);
  if (state.bias != nullptr) calls.conv.bind(DNNL_ARG_BIAS, state.bias);
  calls.conv.execute(node);
  if (!calls.dst_reorder.empty()) {
    calls.dst_reorder.bind(DNNL_ARG_SRC, dst);
    calls.dst_reorder.bind(DNNL_ARG_DST, y.raw_data());
    calls.dst_reorder.execute(node);
  }
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
