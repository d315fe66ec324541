// The vectorized float32 kernels compiled for AVX2 with FMA.
// Only this file's functions carry the ISA (the pragma region below), and they
// run only after detected_isa() found it: the binary itself needs no -march.
#include <algorithm>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/cpu/simd_avx2.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace inferlab::kernels::cpu::avx2 {

using V = VecF32;
constexpr Isa kIsa = Isa::kAvx2;

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

}  // namespace inferlab::kernels::cpu::avx2

#pragma GCC pop_options
