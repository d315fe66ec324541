// com.microsoft::Attention (ONNX Runtime contrib, opset 1), the subset the
// optimizer's attention_fusion emits: bidirectional self-attention with
// merged Q/K/V weights. input [B, S, D_in], weights [D_in, 3H], bias [3H]
// (optional), attention_bias (input 5, optional) [B or 1, N or 1, S, S];
// attributes num_heads N, scale (default 1/sqrt(H/N)). For each batch b and
// head h: softmax(scale * Q_h K_h^T + attention_bias) V_h, written to
// output [B, S, H] at columns h*H/N. mask_index, past, unidirectional,
// rotary embedding, distinct qkv_hidden_sizes and the present output are
// refused as unsupported.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "inferlab/kernels/fused/transformer_kernel_util.h"
#include "inferlab/kernels/fused/transformer_kernels.h"
#include "inferlab/kernels/reference/gemm_f32.h"

namespace inferlab::kernels::fused {
namespace {

struct AttentionProblem {
  int64_t batch = 0;
  int64_t seq = 0;
  int64_t input_hidden = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t head_size = 0;
  float scale = 1.0f;
  bool bias_batch = false;  // attention_bias varies over the batch
  bool bias_heads = false;  // attention_bias varies over the heads
};

void refuse_unsupported(const NodeInfo& node, size_t num_inputs, size_t num_outputs,
                        const std::function<bool(size_t)>& has_input) {
  if (num_outputs > 1) node.fail(ErrorCode::kUnsupported, "output 'present' is not supported");
  for (size_t i : {size_t{3}, size_t{4}, size_t{6}}) {
    if (i < num_inputs && has_input(i)) {
      node.fail(ErrorCode::kUnsupported, "input {} ({}) is not supported", i,
                i == 3   ? "mask_index"
                : i == 4 ? "past"
                         : "past_sequence_length");
    }
  }
  // Keys built once: a long one would allocate on every run.
  static const std::string kFlags[] = {"unidirectional", "do_rotary", "past_present_share_buffer"};
  for (const std::string& flag : kFlags) {
    if (node.attr_int(flag, 0) != 0)
      node.fail(ErrorCode::kUnsupported, "{} is not supported", flag);
  }
}

AttentionProblem make_problem(const NodeInfo& node, const Shape& input, const Shape& weights,
                              const Shape* bias, const Shape* attention_bias) {
  if (input.size() != 3) {
    node.fail(ErrorCode::kInvalidArgument, "input has shape {}; expected [batch, sequence, hidden]",
              shape_to_string(input));
  }
  AttentionProblem p;
  p.batch = input[0];
  p.seq = input[1];
  p.input_hidden = input[2];
  if (weights.size() != 2 || weights[0] != p.input_hidden || weights[1] % 3 != 0) {
    node.fail(ErrorCode::kInvalidArgument, "weights have shape {}; expected [{}, 3 * hidden]",
              shape_to_string(weights), p.input_hidden);
  }
  p.hidden = weights[1] / 3;
  static const std::string kSizesKey = "qkv_hidden_sizes";  // too long for small-string storage
  const auto sizes = node.attr_ints(kSizesKey, {});
  if (!sizes.empty() &&
      (sizes.size() != 3 || sizes[0] != p.hidden || sizes[1] != p.hidden || sizes[2] != p.hidden)) {
    node.fail(ErrorCode::kUnsupported, "qkv_hidden_sizes other than three equal sizes");
  }
  p.heads = node.attr_int("num_heads");
  if (p.heads <= 0 || p.hidden % p.heads != 0) {
    node.fail(ErrorCode::kInvalidArgument, "num_heads {} does not divide hidden size {}", p.heads,
              p.hidden);
  }
  p.head_size = p.hidden / p.heads;
  p.scale = node.attr_float("scale", 1.0f / std::sqrt(static_cast<float>(p.head_size)));
  if (bias != nullptr) require_channel_vector(node, *bias, 3 * p.hidden, "bias");
  if (attention_bias != nullptr) {
    const Shape& ab = *attention_bias;
    const bool ok = ab.size() == 4 && (ab[0] == 1 || ab[0] == p.batch) &&
                    (ab[1] == 1 || ab[1] == p.heads) && ab[2] == p.seq && ab[3] == p.seq;
    if (!ok) {
      node.fail(ErrorCode::kInvalidArgument,
                "attention_bias has shape {}; expected [{} or 1, {} or 1, {}, {}]",
                shape_to_string(ab), p.batch, p.heads, p.seq, p.seq);
    }
    p.bias_batch = ab[0] != 1;
    p.bias_heads = ab[1] != 1;
  }
  return p;
}

void infer_attention(InferContext& ctx) {
  refuse_unsupported(ctx.node(), ctx.num_inputs(), ctx.num_outputs(),
                     [&](size_t i) { return ctx.has_input(i); });
  for (size_t i : {size_t{0}, size_t{1}, size_t{2}, size_t{5}}) {
    if (ctx.has_input(i)) require_float32(ctx.node(), ctx.input(i).dtype, "every float input");
  }
  const AttentionProblem p = make_problem(ctx.node(), ctx.input(0).shape, ctx.input(1).shape,
                                          ctx.has_input(2) ? &ctx.input(2).shape : nullptr,
                                          ctx.has_input(5) ? &ctx.input(5).shape : nullptr);
  ctx.set_output(0, DataType::kFloat32, Shape{p.batch, p.seq, p.hidden});
}

void softmax_rows(float* scores, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = scores + r * cols;
    const float peak = *std::max_element(row, row + cols);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      row[c] = std::exp(row[c] - peak);
      sum += row[c];
    }
    const auto inv = static_cast<float>(1.0 / sum);
    for (int64_t c = 0; c < cols; ++c) row[c] *= inv;
  }
}

// One (batch, head): scores = scale Q K^T (+ bias), softmax, times V.
void attend_head(const AttentionProblem& p, const float* qkv, const float* bias, float* scores,
                 float* out, float* workspace) {
  using reference::GemmShape;
  const int64_t ld = 3 * p.hidden;
  reference::gemm_f32(GemmShape{p.seq, p.seq, p.head_size}, false, true, p.scale, qkv, ld,
                      qkv + p.hidden, ld, 0.0f, scores, p.seq, workspace);
  if (bias != nullptr) {
    for (int64_t i = 0; i < p.seq * p.seq; ++i) scores[i] += bias[i];
  }
  softmax_rows(scores, p.seq, p.seq);
  reference::gemm_f32(GemmShape{p.seq, p.head_size, p.seq}, false, false, 1.0f, scores, p.seq,
                      qkv + 2 * p.hidden, ld, 0.0f, out, p.hidden, workspace);
}

constexpr int64_t kAlign = 16;  // floats: 64 bytes

// `p` moved up to the next 64-byte boundary (scratch is 64-byte aligned).
float* align_floats(float* p) {
  const auto misalignment = reinterpret_cast<uintptr_t>(p) % (kAlign * sizeof(float));
  return misalignment == 0 ? p : p + (kAlign * sizeof(float) - misalignment) / sizeof(float);
}

// The projection as the reference computes it: qkv = input W (+ bias).
void project_reference(const AttentionProblem& p, const Tensor& input, const Tensor& weights,
                       const Tensor* bias, float* qkv, float* workspace) {
  const int64_t tokens = p.batch * p.seq;
  reference::gemm_f32({tokens, 3 * p.hidden, p.input_hidden}, false, false, 1.0f,
                      input.data<float>(), p.input_hidden, weights.data<float>(), 3 * p.hidden,
                      0.0f, qkv, 3 * p.hidden, workspace);
  if (bias == nullptr) return;
  const float* b = bias->data<float>();
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t c = 0; c < 3 * p.hidden; ++c) qkv[t * 3 * p.hidden + c] += b[c];
  }
}

// Every (batch, head) on the OpenMP team of the run; each thread has its own
// scores and GEMM workspace (`per_thread` floats at `buffers`).
void attend_all_heads(const AttentionProblem& p, const float* qkv, const Tensor* attention_bias,
                      float* output, float* buffers, int64_t per_thread, int threads) {
  const int64_t plane = p.seq * p.seq;
  const int64_t pairs = p.batch * p.heads;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t pair = 0; pair < pairs; ++pair) {
    const int64_t b = pair / p.heads;
    const int64_t h = pair % p.heads;
    float* scores = buffers + omp_get_thread_num() * per_thread;
    const float* head_bias = nullptr;
    if (attention_bias != nullptr) {
      const int64_t index =
          (p.bias_batch ? b * (p.bias_heads ? p.heads : 1) : 0) + (p.bias_heads ? h : 0);
      head_bias = attention_bias->data<float>() + index * plane;
    }
    attend_head(p, qkv + b * p.seq * 3 * p.hidden + h * p.head_size, head_bias, scores,
                output + b * p.seq * p.hidden + h * p.head_size, scores + plane);
  }
}

void compute_attention_with(KernelContext& ctx, const AttentionProjection* projection) {
  const NodeInfo& node = ctx.node();
  refuse_unsupported(node, ctx.num_inputs(), ctx.num_outputs(),
                     [&](size_t i) { return ctx.has_input(i); });
  for (size_t i : {size_t{0}, size_t{1}, size_t{2}, size_t{5}}) {
    if (ctx.has_input(i)) require_float32(node, ctx.input(i).dtype(), "every float input");
  }
  const Tensor& input = ctx.input(0);
  const Tensor& weights = ctx.input(1);
  const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  const Tensor* attention_bias = ctx.has_input(5) ? &ctx.input(5) : nullptr;
  const AttentionProblem p =
      make_problem(node, input.shape(), weights.shape(), bias ? &bias->shape() : nullptr,
                   attention_bias ? &attention_bias->shape() : nullptr);
  Tensor& output = ctx.output(0, DataType::kFloat32, Shape{p.batch, p.seq, p.hidden});
  const int64_t tokens = p.batch * p.seq;
  const int64_t qkv_count = tokens * 3 * p.hidden;
  const reference::GemmShape projected{tokens, 3 * p.hidden, p.input_hidden};
  const int64_t head_workspace =
      std::max(reference::gemm_workspace_elements({p.seq, p.seq, p.head_size}),
               reference::gemm_workspace_elements({p.seq, p.head_size, p.seq}));
  const int threads = std::max(1, std::min<int>(omp_get_max_threads(), p.batch * p.heads));
  const int64_t per_thread = p.seq * p.seq + head_workspace;
  const int64_t projection_floats = projection != nullptr
                                        ? static_cast<int64_t>((projection->scratch_bytes + 3) / 4)
                                        : reference::gemm_workspace_elements(projected);
  // One scratch block: QKV, the projection's space, then each thread's
  // scores and workspace.
  float* qkv = ctx.scratch<float>(
      static_cast<size_t>(qkv_count + projection_floats + threads * per_thread + 2 * kAlign));
  float* projection_space = align_floats(qkv + qkv_count);
  float* buffers = align_floats(projection_space + projection_floats);
  if (projection != nullptr) {
    projection->run(ctx, qkv, projection_space);
    if (projection->run_heads(ctx, qkv, projection_space, output.data<float>())) return;
  } else {
    project_reference(p, input, weights, bias, qkv, projection_space);
  }
  attend_all_heads(p, qkv, attention_bias, output.data<float>(), buffers, per_thread, threads);
}

void compute_attention(KernelContext& ctx) { compute_attention_with(ctx, nullptr); }

}  // namespace

void compute_attention_projected(KernelContext& ctx, const AttentionProjection& projection) {
  compute_attention_with(ctx, &projection);
}

OpKernel attention_kernel() {
  return OpKernel{"Attention", 1, 1, infer_attention, compute_attention, "com.microsoft"};
}

}  // namespace inferlab::kernels::fused
