// Conv and ai.inferlab FusedConv on oneDNN. When a run plan is built, the
// convolution primitive is created for the plan's shapes with every layout
// left to oneDNN (format_tag::any), the weights are reordered once into the
// layout it picks (kept in the node's cache, shared by every plan of the
// session), and the activation and the residual add become post-ops: one
// primitive call per fused node. A channels-last FusedConv (the layout
// pass's) reads and writes NHWC, which oneDNN's brgconv computes directly; a
// channels-first node reorders its input and output around the call to the
// layout the convolution picks. A 3x3 stride-1 convolution runs as oneDNN's
// Winograd convolution where that measured faster (prefers_winograd). Without a plan,
// or for what oneDNN is not asked to do (non-float types), the reference
// kernel runs. A channels-last FusedConv with few output channels runs on
// InferLab's own narrow_conv_f32 instead (narrow_conv.h), one with few
// output pixels and large weights on its panel_gemm_f32 (panel_conv.h),
// and a SiLU runs as a pass of InferLab's after the call
// (runs_activation_after).
#include "inferlab/kernels/dnnl/dnnl_kernels.h"

#include <cstring>
#include <string>

#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"
#include "inferlab/kernels/dnnl/narrow_conv.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/dnnl/panel_conv.h"
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
  std::string implementation() const override {
    if (narrow) return "narrow_conv_f32:" + std::string(cpu::isa_name(narrow->table->isa));
    if (panel) return "panel_gemm_f32:" + std::string(cpu::isa_name(panel->gemm.table->isa));
    return implementation_name;
  }

  std::optional<NarrowConv> narrow;  // when set, the rest is unused
  std::optional<PanelConv> panel;    // likewise
  std::string implementation_name;   // oneDNN's, e.g. "brgconv:avx512_core"
  // The activation (and affine) run over the output after the call, on
  // `table`, instead of as post-ops (runs_activation_after).
  std::optional<fused::Activation> activation_after;
  const cpu::KernelTable* table = nullptr;
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

// oneDNN's Winograd convolution (F(2,3) for small batches, F(4,3) for larger
// ones) computes a 3x3 stride-1 convolution in 0.5-0.8 of the direct
// kernel's time on this machine where its transformed weights stay in
// cache: small weights, or a batch that reuses them (resnet50's per-layer
// times in docs/performance.md). Larger weights gain nothing at batch 1,
// where they stream from memory once per image. The cost is memory: the
// transformed weights (16/9 or 36/9 of the original) are kept beside the
// original, which they cannot be reordered back into, and F(4,3)'s
// scratchpad grows with the weights (53 MB for 512 channels at batch 16).
// It rounds differently from the direct convolution, within FP32 tolerance.
constexpr int64_t kWinogradWeightBytes = int64_t{1} << 20;
constexpr int64_t kWinogradBatch = 4;
constexpr int64_t kWinogradBatchWeightBytes = int64_t{4} << 20;
constexpr int64_t kWinogradChannelBlock = 16;

bool prefers_winograd(const Shape& x, const Shape& w, int64_t group,
                      const reference::WindowGeometry& g) {
  if (group != 1 || x.size() != 4 || w[2] != 3 || w[3] != 3) return false;
  // Winograd computes in blocks of 16 channels and takes its input and
  // output blocked: with a partial block (PaddleOCR's 96 -> 24 channels at
  // 160x160: 9.2 ms against 10.7 ms direct) the reorders around the call
  // (1.6-3 ms for the input) eat the gain.
  if (w[0] % kWinogradChannelBlock != 0 || w[1] % kWinogradChannelBlock != 0) return false;
  for (size_t i = 0; i < g.rank(); ++i) {
    if (g.strides[i] != 1 || g.dilations[i] != 1) return false;
  }
  const int64_t weight_bytes = shape_numel(w) * static_cast<int64_t>(sizeof(float));
  return weight_bytes <=
         (x[0] >= kWinogradBatch ? kWinogradBatchWeightBytes : kWinogradWeightBytes);
}

// SiLU runs after the convolution, over its output, rather than as
// oneDNN 2.6's swish post-op: the post-op's exp and division cost more than
// InferLab's sigmoid_v in a pass of its own (efficientnet_b0's seven 1x1
// expansion and head shapes, standalone at 1 thread: 2.08 ms with the
// post-op, 1.80 with the pass).
bool runs_activation_after(const fused::Activation& activation) {
  return activation.kind == fused::ActivationKind::kSiLU;
}

dnnl::memory::desc any_layout(const dnnl::memory::desc& desc) {
  return dnnl::memory::desc(desc.dims(), dnnl::memory::data_type::f32, tag::any);
}

// One convolution as oneDNN describes it, with the tensors' own layouts.
struct ConvProblem {
  dnnl::memory::desc src, weights, bias, dst;
  dnnl::memory::dims strides, dilations, pads_begin, pads_end;
  bool channels_last = false;
  bool winograd = false;  // try oneDNN's Winograd convolution first

  // The primitive for it: Winograd (with plain-or-blocked activations left
  // to oneDNN: it takes no channels-last ones) when asked for and oneDNN has
  // one for these channel counts and this ISA, else the direct convolution.
  // Channels-last activations are asked for as they are: the layout pass
  // chose them so that no reorder runs between convolutions.
  dnnl::convolution_forward::primitive_desc primitive(const dnnl::primitive_attr& attr) const {
    if (winograd) {
      try {
        return dnnl::convolution_forward::primitive_desc(
            describe(dnnl::algorithm::convolution_winograd, false), attr, cpu_engine());
      } catch (const dnnl::error&) {
      }
    }
    return dnnl::convolution_forward::primitive_desc(
        describe(dnnl::algorithm::convolution_direct, channels_last), attr, cpu_engine());
  }

  dnnl::convolution_forward::desc describe(dnnl::algorithm algorithm, bool user_layouts) const {
    return dnnl::convolution_forward::desc(
        dnnl::prop_kind::forward_inference, algorithm, user_layouts ? src : any_layout(src),
        any_layout(weights), bias, user_layouts ? dst : any_layout(dst), strides, dilations,
        pads_begin, pads_end);
  }
};

ConvProblem conv_problem(PrepareContext& ctx, bool fused) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& w = ctx.input(1);
  ConvProblem problem;
  problem.channels_last = fused && layout::is_channels_last(node);
  // oneDNN's dims are always N, C, spatial...; the layout is in the desc.
  const auto logical = [&](const Shape& shape) {
    return problem.channels_last ? layout::to_channels_first(shape) : shape;
  };
  const auto user_desc = [&](const Shape& dims) {
    return problem.channels_last ? channels_last_desc(dims) : plain_desc(dims);
  };
  const Shape x = logical(ctx.input(0).shape);
  const int64_t group = node.attr_int("group", 1);
  const reference::WindowGeometry g = reference::resolve_window(
      node, Shape(x.begin() + 2, x.end()), reference::kernel_from_weights(node, w.shape), {});
  problem.src = user_desc(x);
  problem.dst = user_desc(logical(ctx.output(0).shape));
  problem.weights = user_weights_desc(w.shape, group);
  if (ctx.has_input(2)) problem.bias = plain_desc(ctx.input(2).shape);
  problem.strides = to_dims(g.strides);
  for (int64_t d : g.dilations) problem.dilations.push_back(d - 1);  // oneDNN counts the gaps
  problem.pads_begin = to_dims(g.pads_begin);
  problem.pads_end = to_dims(g.pads_end);
  problem.winograd = prefers_winograd(x, w.shape, group, g);
  return problem;
}

std::unique_ptr<KernelState> prepare_conv(PrepareContext& ctx, bool fused,
                                          const cpu::KernelTable& table) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& x = ctx.input(0);
  const bool has_bias = ctx.has_input(2);
  const bool has_residual = fused && ctx.has_input(kResidual);
  if (x.dtype != DataType::kFloat32 || ctx.input(1).value == nullptr || x.shape.size() < 3 ||
      x.shape.size() > 5 || (has_bias && ctx.input(2).value == nullptr) ||
      ctx.output(0).dtype != DataType::kFloat32) {
    return nullptr;  // the reference kernel handles it
  }
  auto state = std::make_unique<ConvState>();
  if (fused) state->narrow = prepare_narrow_conv(ctx, table);
  if (state->narrow) return state;
  if (fused) state->panel = prepare_panel_conv(ctx, table);
  if (state->panel) return state;
  const ConvProblem problem = conv_problem(ctx, fused);
  dnnl::post_ops ops;
  if (has_residual) ops.append_sum(1.0f);  // Y = act(conv + Z): the sum comes first
  if (fused) {
    const fused::Activation activation = fused::parse_activation(node);
    if (runs_activation_after(activation)) {
      state->activation_after = activation;
      state->table = &table;
    } else {
      append_activation(activation, ops);
    }
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::convolution_forward::primitive_desc pd = problem.primitive(attr);

  state->implementation_name = pd.impl_info_str();
  state->weights = packed_weights(ctx, 1, problem.weights, pd.weights_desc());
  if (has_bias) state->bias = ctx.input(2).value->raw_data();
  state->output_shape = ctx.output(0).shape;
  state->layouts = LayoutAdapter(problem.src, pd.src_desc(), pd.dst_desc(), problem.dst,
                                 align_scratch(pd.scratchpad_desc().get_size()));
  if (has_residual) state->residual_reorder = make_reorder(problem.dst, pd.dst_desc());
  state->scratch_bytes = state->layouts.end();
  ctx.expect_scratch(state->scratch_bytes);
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
  if (state.narrow) return run_narrow_conv(*state.narrow, ctx);
  if (state.panel) return run_panel_conv(*state.panel, ctx);
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
  if (state.activation_after) {
    float* data = y.data<float>();
    const cpu::Isa isa = state.table->isa;
    cpu::parallel_ranges(y.numel(), 1, 16, [&](int64_t begin, int64_t end) {
      fused::apply_activation(*state.activation_after, data + begin, end - begin, isa);
    });
  }
}

OpKernel with_dnnl(OpKernel kernel, bool fused, const cpu::KernelTable& table) {
  return on_dnnl<ConvState>(
      std::move(kernel),
      [fused, &table](PrepareContext& ctx) { return prepare_conv(ctx, fused, table); },
      [fused](ConvState& state, KernelContext& ctx) { run_conv(state, ctx, fused); });
}

}  // namespace

void add_dnnl_conv_kernels(OpRegistry& registry, const cpu::KernelTable& table) {
  registry.add(with_dnnl(reference::conv_kernel(), false, table));
  registry.add(with_dnnl(fused::fused_conv_kernel(), true, table));
}

}  // namespace inferlab::kernels::dnnl_backend
