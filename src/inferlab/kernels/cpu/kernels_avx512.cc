// The vectorized float32 kernels compiled for AVX-512 (avx512f+bw+dq+vl, with FMA).
// Only this file's functions carry the ISA (the pragma region below), and they
// run only after detected_isa() found it: the binary itself needs no -march.
#include <algorithm>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/cpu/simd_avx512.h"

#pragma GCC push_options
// GCC 12 flags the self-initialized _mm512_undefined_ps() inside its own
// intrinsics as (maybe-)uninitialized: a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")

namespace inferlab::kernels::cpu::avx512 {

using V = VecF32;
constexpr Isa kIsa = Isa::kAvx512;

// Order matters: each file uses the ones before it (clang-format must not sort).
// clang-format off
#include "inferlab/kernels/cpu/vector_math.inc"
#include "inferlab/kernels/cpu/unary_f32.inc"
#include "inferlab/kernels/cpu/block_upsample_f32.inc"
#include "inferlab/kernels/cpu/binary_f32.inc"
#include "inferlab/kernels/cpu/softmax_f32.inc"
#include "inferlab/kernels/cpu/layer_norm_f32.inc"
#include "inferlab/kernels/cpu/gemv_f32.inc"
#include "inferlab/kernels/cpu/channel_sums_f32.inc"
#include "inferlab/kernels/cpu/narrow_conv_f32.inc"
#include "inferlab/kernels/cpu/panel_gemm_f32.inc"
#include "inferlab/kernels/cpu/kernel_table.inc"
// clang-format on

}  // namespace inferlab::kernels::cpu::avx512

#pragma GCC diagnostic pop
#pragma GCC pop_options
