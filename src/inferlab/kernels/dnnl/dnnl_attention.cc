// com.microsoft::Attention on oneDNN in planned runs. The Q/K/V projection
// (nine tenths of the FLOPs) is one matmul with the merged weights
// prepacked once and the bias a bias argument. The heads are three
// primitives over every (batch, head) at once, reading Q, K and V in place
// in the projection's output through strides: scores = scale Q K^T (+ the
// attention bias as a binary post-op), softmax over the last axis, and
// scores V written straight into the output's [batch, sequence, hidden]
// columns. Heads oneDNN cannot take (an attention bias it cannot
// broadcast) run as the reference computes them.
#include <algorithm>
#include <cmath>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/dnnl/panel_gemm.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

constexpr size_t kAttentionBias = 5;
using dims = dnnl::memory::dims;

dnnl::memory::desc strided(const dims& shape, const dims& strides) {
  return dnnl::memory::desc(shape, dnnl::memory::data_type::f32, strides);
}

struct AttentionState : KernelState, fused::AttentionProjection {
  DnnlCall matmul;
  std::optional<PanelGemm> panel;  // the projection on panel_gemm_f32 instead
  std::shared_ptr<AlignedBytes> weights;
  const void* bias = nullptr;
  // The heads (empty calls: the reference computes them).
  DnnlCall scores;                 // Q K^T, scaled, + attention bias
  DnnlCall softmax;                // in place over the scores
  DnnlCall context;                // scores V -> output
  size_t scores_offset = 0;        // the scores in the scratch, after the heads' scratchpad
  size_t heads_scratch_bytes = 0;  // scratchpad and scores

  std::string implementation() const override {
    if (panel) {
      return scores.empty() ? "panel_gemm_f32 projection, reference heads"
                            : "panel_gemm_f32 projection, oneDNN heads";
    }
    return scores.empty() ? "oneDNN projection, reference heads" : "oneDNN projection and heads";
  }

  bool run_heads(KernelContext& ctx, const float* qkv, void* space, float* output) const override {
    if (scores.empty()) return false;
    const int64_t hidden = ctx.input(1).dim(1) / 3;
    auto* scratch = static_cast<std::byte*>(space);
    void* probabilities = scratch + scores_offset;
    scores.bind(DNNL_ARG_SRC, qkv);
    scores.bind(DNNL_ARG_WEIGHTS, qkv + hidden);
    scores.bind(DNNL_ARG_DST, probabilities);
    scores.bind(DNNL_ARG_SCRATCHPAD, scratch);
    if (ctx.has_input(kAttentionBias)) {
      scores.bind(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                  ctx.input(kAttentionBias).raw_data());
    }
    scores.execute(ctx.node());
    softmax.bind(DNNL_ARG_SRC, probabilities);
    softmax.bind(DNNL_ARG_DST, probabilities);
    softmax.bind(DNNL_ARG_SCRATCHPAD, scratch);
    softmax.execute(ctx.node());
    context.bind(DNNL_ARG_SRC, probabilities);
    context.bind(DNNL_ARG_WEIGHTS, qkv + 2 * hidden);
    context.bind(DNNL_ARG_DST, output);
    context.bind(DNNL_ARG_SCRATCHPAD, scratch);
    context.execute(ctx.node());
    return true;
  }

  void run(KernelContext& ctx, float* qkv, void* space) const override {
    if (panel) {
      return run_panel_product(*panel, ctx.input(0).data<float>(), qkv, static_cast<float*>(space));
    }
    const DnnlCall& call = matmul;
    call.bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
    call.bind(DNNL_ARG_WEIGHTS, weights->data());
    call.bind(DNNL_ARG_DST, qkv);
    call.bind(DNNL_ARG_SCRATCHPAD, space);
    if (bias != nullptr) call.bind(DNNL_ARG_BIAS, bias);
    call.execute(ctx.node());
  }
};

// Every (batch b, head n) at once: Q, K, V are [B, N, S, Hd] views of the
// projection's output [B, S, 3H] (row stride 3H, head stride Hd).
void prepare_heads(PrepareContext& ctx, AttentionState& state) {
  const Shape& input = ctx.input(0).shape;
  const int64_t b = input[0];
  const int64_t s = input[1];
  const int64_t hidden = ctx.input(1).shape[1] / 3;
  const int64_t heads = ctx.node().attr_int("num_heads");
  if (heads <= 0 || hidden % heads != 0) return;
  const int64_t hd = hidden / heads;
  const float scale = ctx.node().attr_float("scale", 1.0f / std::sqrt(static_cast<float>(hd)));
  const dims qkv_strides = {s * 3 * hidden, hd, 3 * hidden, 1};
  const dnnl::memory::desc q = strided({b, heads, s, hd}, qkv_strides);
  const dnnl::memory::desc k_transposed =
      strided({b, heads, hd, s}, {s * 3 * hidden, hd, 1, 3 * hidden});
  const dnnl::memory::desc v = strided({b, heads, s, hd}, qkv_strides);
  const dnnl::memory::desc probabilities = plain_desc(Shape{b, heads, s, s});
  const dnnl::memory::desc output = strided({b, heads, s, hd}, {s * hidden, hd, hidden, 1});

  dnnl::primitive_attr scores_attr;
  scores_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  scores_attr.set_output_scales(0, {scale});
  std::vector<std::pair<int, dnnl::memory::desc>> score_args;
  if (ctx.has_input(kAttentionBias)) {
    const dnnl::memory::desc bias = plain_desc(ctx.input(kAttentionBias).shape);
    dnnl::post_ops ops;
    ops.append_binary(dnnl::algorithm::binary_add, bias);
    scores_attr.set_post_ops(ops);
    score_args.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bias);
  }
  const dnnl::matmul::primitive_desc scores_pd(dnnl::matmul::desc(q, k_transposed, probabilities),
                                               scores_attr, cpu_engine());
  dnnl::primitive_attr plain_attr;
  plain_attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::softmax_forward::primitive_desc softmax_pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, probabilities, 3), plain_attr,
      cpu_engine());
  const dnnl::matmul::primitive_desc context_pd(dnnl::matmul::desc(probabilities, v, output),
                                                plain_attr, cpu_engine());

  score_args.insert(score_args.begin(), {{DNNL_ARG_SRC, q},
                                         {DNNL_ARG_WEIGHTS, k_transposed},
                                         {DNNL_ARG_DST, probabilities},
                                         {DNNL_ARG_SCRATCHPAD, scores_pd.scratchpad_desc()}});
  state.scores = DnnlCall(dnnl::matmul(scores_pd), score_args);
  state.softmax = DnnlCall(dnnl::softmax_forward(softmax_pd),
                           {{DNNL_ARG_SRC, probabilities},
                            {DNNL_ARG_DST, probabilities},
                            {DNNL_ARG_SCRATCHPAD, softmax_pd.scratchpad_desc()}});
  state.context =
      DnnlCall(dnnl::matmul(context_pd), {{DNNL_ARG_SRC, probabilities},
                                          {DNNL_ARG_WEIGHTS, v},
                                          {DNNL_ARG_DST, output},
                                          {DNNL_ARG_SCRATCHPAD, context_pd.scratchpad_desc()}});
  state.scores_offset = align_scratch(
      std::max({scores_pd.scratchpad_desc().get_size(), softmax_pd.scratchpad_desc().get_size(),
                context_pd.scratchpad_desc().get_size()}));
  state.heads_scratch_bytes = state.scores_offset + probabilities.get_size();
}

// The projection on oneDNN's matmul, its weights prepacked.
void prepare_projection(PrepareContext& ctx, AttentionState& state) {
  const ValueFacts& input = ctx.input(0);
  const ValueFacts& weights = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  const int64_t tokens = input.shape[0] * input.shape[1];
  const Shape a = {tokens, input.shape[2]};
  const dnnl::memory::desc user_weights = plain_desc(weights.shape);
  const dnnl::memory::desc any_weights(user_weights.dims(), dnnl::memory::data_type::f32,
                                       dnnl::memory::format_tag::any);
  const dnnl::memory::desc bias_desc =
      has_bias ? plain_desc(Shape{1, weights.shape[1]}) : dnnl::memory::desc();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::desc desc(plain_desc(a), any_weights, bias_desc,
                                plain_desc(Shape{tokens, weights.shape[1]}));
  const dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
  state.weights = packed_weights(ctx, 1, user_weights, pd.weights_desc());
  if (has_bias) state.bias = ctx.input(2).value->raw_data();
  state.scratch_bytes = pd.scratchpad_desc().get_size();
  std::vector<std::pair<int, dnnl::memory::desc>> arguments = {
      {DNNL_ARG_SRC, pd.src_desc()},
      {DNNL_ARG_WEIGHTS, pd.weights_desc()},
      {DNNL_ARG_DST, pd.dst_desc()},
      {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}};
  if (has_bias) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state.matmul = DnnlCall(dnnl::matmul(pd), arguments);
}

std::unique_ptr<KernelState> prepare_attention(PrepareContext& ctx, const cpu::KernelTable& table) {
  const ValueFacts& input = ctx.input(0);
  const ValueFacts& weights = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  if (input.dtype != DataType::kFloat32 || weights.dtype != DataType::kFloat32 ||
      weights.value == nullptr || input.shape.size() != 3 || weights.shape.size() != 2 ||
      (has_bias && ctx.input(2).value == nullptr)) {
    return nullptr;
  }
  const int64_t tokens = input.shape[0] * input.shape[1];
  auto state = std::make_unique<AttentionState>();
  state->panel =
      prepare_panel_product(ctx, {tokens, input.shape[2], weights.shape[1]}, false, table);
  if (state->panel) {
    state->scratch_bytes = panel_gemm_scratch_bytes(*state->panel);
  } else {
    prepare_projection(ctx, *state);
  }
  try {
    prepare_heads(ctx, *state);
  } catch (const dnnl::error&) {
    state->scores = DnnlCall();  // the reference computes the heads
  }
  state->scratch_bytes = std::max(state->scratch_bytes, state->heads_scratch_bytes);
  ctx.expect_scratch(state->scratch_bytes);
  return state;
}

}  // namespace

void add_dnnl_attention_kernel(OpRegistry& registry, const cpu::KernelTable& table) {
  registry.add(on_dnnl<AttentionState>(
      fused::attention_kernel(),
      [&table](PrepareContext& ctx) { return prepare_attention(ctx, table); },
      [](AttentionState& state, KernelContext& ctx) {
        fused::compute_attention_projected(ctx, state);
      }));
}

}  // namespace inferlab::kernels::dnnl_backend
