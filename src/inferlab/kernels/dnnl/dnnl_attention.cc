// com.microsoft::Attention with its Q/K/V projection (nine tenths of its
// FLOPs) on a oneDNN matmul in planned runs: the merged weights prepacked
// once, the bias a bias argument. The heads are computed as the reference
// kernel computes them, spread over the run's OpenMP team.
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/fused/transformer_kernels.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

struct AttentionState : KernelState, fused::AttentionProjection {
  DnnlCall matmul;
  std::shared_ptr<AlignedBytes> weights;
  const void* bias = nullptr;

  void run(KernelContext& ctx, float* qkv, void* space) const override {
    const DnnlCall& call = matmul;
    call.bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
    call.bind(DNNL_ARG_WEIGHTS, weights->data());
    call.bind(DNNL_ARG_DST, qkv);
    call.bind(DNNL_ARG_SCRATCHPAD, space);
    if (bias != nullptr) call.bind(DNNL_ARG_BIAS, bias);
    call.execute(ctx.node());
  }
};

std::unique_ptr<KernelState> prepare_attention(PrepareContext& ctx) {
  const ValueFacts& input = ctx.input(0);
  const ValueFacts& weights = ctx.input(1);
  const bool has_bias = ctx.has_input(2);
  if (input.dtype != DataType::kFloat32 || weights.dtype != DataType::kFloat32 ||
      weights.value == nullptr || input.shape.size() != 3 || weights.shape.size() != 2 ||
      (has_bias && ctx.input(2).value == nullptr)) {
    return nullptr;
  }
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
  auto state = std::make_unique<AttentionState>();
  state->weights = packed_weights(ctx, 1, user_weights, pd.weights_desc());
  if (has_bias) state->bias = ctx.input(2).value->raw_data();
  state->scratch_bytes = pd.scratchpad_desc().get_size();
  std::vector<std::pair<int, dnnl::memory::desc>> arguments = {
      {DNNL_ARG_SRC, pd.src_desc()},
      {DNNL_ARG_WEIGHTS, pd.weights_desc()},
      {DNNL_ARG_DST, pd.dst_desc()},
      {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}};
  if (has_bias) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state->matmul = DnnlCall(dnnl::matmul(pd), arguments);
  return state;
}

}  // namespace

void add_dnnl_attention_kernel(OpRegistry& registry) {
  registry.add(on_dnnl<AttentionState>(fused::attention_kernel(), prepare_attention,
                                       [](AttentionState& state, KernelContext& ctx) {
                                         fused::compute_attention_projected(ctx, state);
                                       }));
}

}  // namespace inferlab::kernels::dnnl_backend
