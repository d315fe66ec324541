// A MatMul or Gemm with few rows of A and large constant weights on
// InferLab's own panel_gemm_f32 instead of oneDNN (dnnl_matmul.cc asks here
// first): the encoder's projections and feed-forward layers at sequence
// 128. oneDNN's matmul reaches 91% of a core on them with the weights in
// cache, 75-80% in the model, where each call streams its megabytes of
// weights from memory without overlapping them with the FMAs; this kernel
// prefetches the next block's weights while it computes the current one.
// Few-pixel convolutions use it too (panel_conv.h). Taken for 2-256 rows
// when the columns are whole blocks the threads share evenly, each thread
// streams 256 KiB of weights or more, and, with several threads, the
// product is at least as wide as deep (panel_gemm.cc says why).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/fused/activation.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::dnnl_backend {

struct PanelGemm {
  const cpu::KernelTable* table = nullptr;
  std::shared_ptr<AlignedBytes> weights;  // [N / block][K][block]
  const float* bias = nullptr;            // the constant bias (or Gemm C row); null: zero_bias
  std::vector<float> zero_bias;
  fused::Activation activation;
  cpu::PanelGemmShape shape;
  Shape output_shape;
};

// How the node reads its inputs: A [..., K] (leading dims folded into
// rows), B a constant [K, N], or [N, K] when `trans_b`, and an optional
// constant addend of N values.
struct PanelGemmOperands {
  bool trans_b = false;
  bool fused = false;  // FusedMatMul / FusedGemm: an activation attribute
};

// The node on panel_gemm_f32 of `table`, or nullopt when it does not
// qualify (oneDNN runs it).
std::optional<PanelGemm> prepare_panel_gemm(PrepareContext& ctx, const PanelGemmOperands& operands,
                                            const cpu::KernelTable& table);
void run_panel_gemm(const PanelGemm& gemm, KernelContext& ctx);

// The product `shape` of the node's input 0 (read as [rows, depth]) and
// constant input 1, plus its constant input 2 of `columns` values when
// present, or nullopt when it does not qualify: for a node whose output is
// not the product itself (Attention's Q/K/V projection).
std::optional<PanelGemm> prepare_panel_product(PrepareContext& ctx,
                                               const cpu::PanelGemmShape& shape, bool trans_b,
                                               const cpu::KernelTable& table);
// The same with the node's input 1 read through `weights_view`, whose dense
// layout (format_tag::abc..., the last dim the block) is
// [columns / block][depth][block]: a convolution's [M, C, kh, kw].
std::optional<PanelGemm> prepare_panel_viewed(PrepareContext& ctx, const cpu::PanelGemmShape& shape,
                                              const dnnl::memory::desc& weights_view,
                                              const cpu::KernelTable& table);
// Scratch run_panel_product needs: A packed.
size_t panel_gemm_scratch_bytes(const PanelGemm& gemm);
// out [rows, columns] = a w (+ bias) (+ residual, same layout as out, may
// be null), then the activation; `packed_a` holds panel_gemm_scratch_bytes.
void run_panel_product(const PanelGemm& gemm, const float* a, float* out, float* packed_a,
                       const float* residual = nullptr);

}  // namespace inferlab::kernels::dnnl_backend
