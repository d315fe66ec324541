// The vectorized float32 kernels compiled for baseline x86-64 (or any CPU): one float at a time,
// left to the compiler to vectorize. The same sources as the AVX2 and AVX-512 files, so every ISA
// computes with the same algorithm (FMA aside).
#include <algorithm>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/cpu/simd_portable.h"

namespace inferlab::kernels::cpu::portable {

using V = VecF32;
constexpr Isa kIsa = Isa::kPortable;

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

}  // namespace inferlab::kernels::cpu::portable
