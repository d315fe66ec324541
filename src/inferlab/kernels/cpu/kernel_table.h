// The vectorized float32 kernels of one ISA, as a table of function pointers
// (like ggml's per-arch tables): kernels_avx512.cc, kernels_avx2.cc and
// kernels_portable.cc each compile the same kernel sources (*.inc) for their
// ISA and fill one table. The operator glue (unary.cc, binary.cc, softmax.cc,
// layer_normalization.cc, gelu.cc) checks shapes and types, then calls the
// table of the session's ISA. Pointers: no aliasing assumed except y == x.
#pragma once

#include <cstdint>

#include "inferlab/kernels/cpu/isa.h"

namespace inferlab::kernels::cpu {

// Elementwise functions (the standalone operators and the fused epilogues).
enum class UnaryKind {
  kIdentity,
  kRelu,
  kLeakyRelu,  // p0 = alpha
  kClip,       // p0 = min, p1 = max
  kSigmoid,
  kHardSigmoid,  // p0 = alpha, p1 = beta
  kHardSwish,
  kTanh,
  kErf,
  kExp,
  kGelu,      // exact: 0.5 x (1 + erf(x / sqrt 2))
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kSiLU,      // x * sigmoid(x)
};

struct UnaryParams {
  float p0 = 0.0f;
  float p1 = 0.0f;
};

enum class BinaryKind { kAdd, kSub, kMul, kDiv };

// A transposed convolution whose stride equals its kernel (no pads,
// dilation or groups), per image: x [channels, height, width] ->
// y [out_channels, height * kernel_h, width * kernel_w].
struct BlockUpsampleShape {
  int64_t channels = 0;
  int64_t out_channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t kernel_h = 0;
  int64_t kernel_w = 0;
};

// Floats per channel of block_upsample_f32's packed input row: the width
// rounded up to whole cache lines, plus one when that is a multiple of
// 1 KiB, so the channels' rows do not share cache sets. Its scratch holds
// channels * block_upsample_stride(width) floats.
constexpr int64_t block_upsample_stride(int64_t width) {
  const int64_t lines = (width + 15) / 16;
  return (lines % 16 == 0 ? lines + 1 : lines) * 16;
}

// A stride-1, undilated, ungrouped 3x3 convolution of one channels-last
// image: x [in_h, in_w, channels] -> y [out_h, out_w, out_channels], the
// input read as zero outside [0, in_h) x [0, in_w) after the top and left
// pads.
struct NarrowConvShape {
  int64_t channels = 0;
  int64_t out_channels = 0;
  int64_t in_h = 0;
  int64_t in_w = 0;
  int64_t out_h = 0;
  int64_t out_w = 0;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
};

// A product y [rows, columns] = a [rows, depth] w [depth, columns] (+ bias).
struct PanelGemmShape {
  int64_t rows = 0;
  int64_t depth = 0;
  int64_t columns = 0;
};

struct KernelTable {
  Isa isa;
  // y[i] = f(x[i]), i < n.
  void (*unary_f32)(UnaryKind kind, UnaryParams params, const float* x, float* y, int64_t n);
  // y[r, c] = f(x[r, c] + bias[c]) over `rows` rows of `channels`.
  void (*bias_unary_f32)(UnaryKind kind, UnaryParams params, const float* x, const float* bias,
                         float* y, int64_t rows, int64_t channels);
  // y[i] = a[i] op b[i], i < n.
  void (*binary_f32)(BinaryKind kind, const float* a, const float* b, float* y, int64_t n);
  // y[o, m, i] = full[o, m, i] op part[m] (or part[m] op full[o, m, i] when
  // `part_first`): a trailing-axes broadcast; a scalar is mid = 1.
  void (*binary_broadcast_f32)(BinaryKind kind, const float* full, const float* part, float* y,
                               int64_t outer, int64_t mid, int64_t inner, bool part_first);
  // Softmax over the middle axis of [outer, axis, inner]; `scratch` holds
  // 2 * inner floats (unused when inner == 1).
  void (*softmax_f32)(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner,
                      float* scratch);
  // Layer normalization of `rows` rows of `n`: s = x (+ skip[r % skip_rows])
  // (+ bias), y = (s - mean) / sqrt(var + epsilon) * gamma (+ beta).
  // skip, bias and beta may be null.
  void (*layer_norm_f32)(const float* x, const float* skip, int64_t skip_rows, const float* bias,
                         const float* gamma, const float* beta, double epsilon, float* y,
                         int64_t rows, int64_t n);
  // Block upsampling of input rows [row_begin, row_end) of one image:
  // y[m, h * kh + i, w * kw + j] = f(bias[m] + sum_c x[c, h, w] * weights[i, m, c, j]),
  // weights [kernel_h, out_channels, channels, kernel_w], bias [out_channels];
  // `scratch` holds channels * block_upsample_stride(width) floats (one per
  // thread).
  void (*block_upsample_f32)(UnaryKind kind, UnaryParams params, const BlockUpsampleShape& shape,
                             const float* x, const float* weights, const float* bias, float* y,
                             int64_t row_begin, int64_t row_end, float* scratch);
  // One row of a matrix product: y[n] = sum_k x[k] * w[n, k] (+ bias[n]) for
  // n in [n_begin, n_end); w is [N, k] row-major; bias may be null.
  void (*gemv_f32)(const float* x, const float* w, const float* bias, float* y, int64_t k,
                   int64_t n_begin, int64_t n_end);
  // sums[c] += x[p, c] over `pixels` channels-last pixels of `channels`.
  void (*channel_sums_f32)(const float* x, int64_t pixels, int64_t channels, float* sums);
  // Output rows [row_begin, row_end) of a 3x3 convolution with few output
  // channels, vectorized along the input channels (narrow_conv_f32.inc):
  // y[h, w, m] = bias[m] + sum x[h + i - pad_top, w + j - pad_left, c] *
  // W[m, c, i, j]. `weights` are packed [M / O][3][C / S][3][O / G][G][S]
  // with O = narrow_conv_outputs, S = narrow_conv_channels and G =
  // narrow_conv_group (outputs per vector; S * G is the vector width); C
  // must be a multiple of S and M of O; `zeros` holds C zeros (the
  // padding's pixels).
  void (*narrow_conv_f32)(const NarrowConvShape& shape, const float* x, const float* weights,
                          const float* bias, const float* zeros, float* y, int64_t row_begin,
                          int64_t row_end);
  int narrow_conv_outputs;
  int narrow_conv_channels;
  int narrow_conv_group;
  // A product with constant weights streamed from memory
  // (panel_gemm_f32.inc): A's row tiles [tile_begin, tile_end) of
  // panel_gemm_rows rows packed [tile][depth][panel_gemm_rows], zero past
  // the last row; then one block of panel_gemm_block output columns of
  // every row over k in [k_begin, k_end): y[r, n] = (k_begin == 0 ? bias[n]
  // : y[r, n]) + sum_k a[r, k] w[k, n], with `weights` packed
  // [columns / block][depth][block], prefetching `prefetch_bytes` from
  // `prefetch_next` (null: none) into L2 meanwhile. columns must be a
  // multiple of the block.
  void (*panel_gemm_pack_f32)(const PanelGemmShape& shape, const float* a, float* packed,
                              int64_t tile_begin, int64_t tile_end);
  void (*panel_gemm_f32)(const PanelGemmShape& shape, const float* packed_a, const float* weights,
                         const float* bias, float* y, int64_t block, int64_t k_begin, int64_t k_end,
                         const float* prefetch_next, int64_t prefetch_bytes);
  int panel_gemm_rows;
  int panel_gemm_block;
};

// The table for `isa`; the caller makes sure the CPU runs it.
const KernelTable& kernel_table(Isa isa);

namespace portable {
const KernelTable& kernel_table();
}
namespace avx2 {
const KernelTable& kernel_table();
}
namespace avx512 {
const KernelTable& kernel_table();
}

}  // namespace inferlab::kernels::cpu
