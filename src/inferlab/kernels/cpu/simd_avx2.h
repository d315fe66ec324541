// 8 floats in a ymm register, with the operations of simd_portable.h.
// Compiled for AVX2+FMA (the pragma below) and inlined into the AVX2
// kernels; include it only from kernels_avx2.cc.
#pragma once

#include <immintrin.h>

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx2,fma")

namespace inferlab::kernels::cpu::avx2 {

#define IL_SIMD_INLINE inline __attribute__((always_inline))

struct VecF32 {
  static constexpr int kWidth = 8;
  using Mask = __m256;
  __m256 v;

  // All-ones in the first `n` lanes (masked loads and stores use the sign bit).
  static IL_SIMD_INLINE __m256i first(int n) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
  }
  static IL_SIMD_INLINE VecF32 load(const float* p) { return {_mm256_loadu_ps(p)}; }
  static IL_SIMD_INLINE VecF32 load_partial(const float* p, int n, float fill) {
    const __m256i m = first(n);
    const __m256 loaded = _mm256_maskload_ps(p, m);
    return {_mm256_blendv_ps(_mm256_set1_ps(fill), loaded, _mm256_castsi256_ps(m))};
  }
  static IL_SIMD_INLINE VecF32 set1(float x) { return {_mm256_set1_ps(x)}; }
  IL_SIMD_INLINE void store(float* p) const { _mm256_storeu_ps(p, v); }
  IL_SIMD_INLINE void store_partial(float* p, int n) const { _mm256_maskstore_ps(p, first(n), v); }
};

IL_SIMD_INLINE VecF32 operator+(VecF32 a, VecF32 b) { return {_mm256_add_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator-(VecF32 a, VecF32 b) { return {_mm256_sub_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator*(VecF32 a, VecF32 b) { return {_mm256_mul_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator/(VecF32 a, VecF32 b) { return {_mm256_div_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 fmadd(VecF32 a, VecF32 b, VecF32 c) {
  return {_mm256_fmadd_ps(a.v, b.v, c.v)};
}
IL_SIMD_INLINE VecF32 min(VecF32 a, VecF32 b) { return {_mm256_min_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 max(VecF32 a, VecF32 b) { return {_mm256_max_ps(a.v, b.v)}; }
IL_SIMD_INLINE __m256 lt(VecF32 a, VecF32 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ); }
IL_SIMD_INLINE __m256 gt(VecF32 a, VecF32 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ); }
IL_SIMD_INLINE __m256 ge(VecF32 a, VecF32 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_GE_OQ); }
IL_SIMD_INLINE VecF32 select(__m256 m, VecF32 t, VecF32 f) {
  return {_mm256_blendv_ps(f.v, t.v, m)};
}
IL_SIMD_INLINE VecF32 abs(VecF32 a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
// 1 / a to about 2 ulp for finite a >= 1: the 12-bit estimate and one
// Newton step.
IL_SIMD_INLINE VecF32 reciprocal(VecF32 a) {
  const __m256 r = _mm256_rcp_ps(a.v);
  return {_mm256_mul_ps(r, _mm256_fnmadd_ps(a.v, r, _mm256_set1_ps(2.0f)))};
}
IL_SIMD_INLINE VecF32 copysign(VecF32 mag, VecF32 sign) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  return {_mm256_or_ps(_mm256_andnot_ps(sign_bit, mag.v), _mm256_and_ps(sign_bit, sign.v))};
}
IL_SIMD_INLINE VecF32 round_nearest(VecF32 a) {
  return {_mm256_round_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
IL_SIMD_INLINE VecF32 pow2i(VecF32 n) {
  const __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(n.v), _mm256_set1_epi32(127));
  return {_mm256_castsi256_ps(_mm256_slli_epi32(e, 23))};
}
// a * 2^n for an integral n in [-126, 127].
IL_SIMD_INLINE VecF32 scale_pow2(VecF32 a, VecF32 n) { return a * pow2i(n); }
// p[2l] = a[l], p[2l + 1] = b[l] for the first n lanes.
IL_SIMD_INLINE void store_interleaved(VecF32 a, VecF32 b, float* p, int n) {
  const __m256 low = _mm256_unpacklo_ps(a.v, b.v);   // a0 b0 a1 b1 | a4 b4 a5 b5
  const __m256 high = _mm256_unpackhi_ps(a.v, b.v);  // a2 b2 a3 b3 | a6 b6 a7 b7
  const VecF32 first{_mm256_permute2f128_ps(low, high, 0x20)};
  const VecF32 second{_mm256_permute2f128_ps(low, high, 0x31)};
  if (n == 8) {
    first.store(p);
    second.store(p + 8);
    return;
  }
  first.store_partial(p, n >= 4 ? 8 : 2 * n);
  if (n > 4) second.store_partial(p + 8, 2 * n - 8);
}
IL_SIMD_INLINE float reduce_add(VecF32 a) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// Lane i = the sum of v[i]'s lanes, for 8 vectors (a tree of horizontal adds).
IL_SIMD_INLINE VecF32 sum_each(const VecF32* v) {
  const __m256 low = _mm256_hadd_ps(_mm256_hadd_ps(v[0].v, v[1].v), _mm256_hadd_ps(v[2].v, v[3].v));
  const __m256 high =
      _mm256_hadd_ps(_mm256_hadd_ps(v[4].v, v[5].v), _mm256_hadd_ps(v[6].v, v[7].v));
  // low: v0..v3's sums of lanes 0-3, then of lanes 4-7; high: the same for v4..v7.
  return {_mm256_add_ps(_mm256_permute2f128_ps(low, high, 0x20),
                        _mm256_permute2f128_ps(low, high, 0x31))};
}
// 4 floats from p in both halves (a load-port broadcast: no shuffle).
IL_SIMD_INLINE VecF32 load_twice(const float* p) {
  return {_mm256_broadcast_ps(reinterpret_cast<const __m128*>(p))};
}
// Lane 2k + h = the sum of half h (4 lanes) of v[k], for 4 vectors.
IL_SIMD_INLINE VecF32 sum_halves_each(const VecF32* v) {
  // hadd twice: v0..v3's half 0 sums in the low 128 bits, half 1 in the high.
  const __m256 sums =
      _mm256_hadd_ps(_mm256_hadd_ps(v[0].v, v[1].v), _mm256_hadd_ps(v[2].v, v[3].v));
  return {_mm256_permutevar8x32_ps(sums, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))};
}
// Lane i = a[i + n] for i + n < 8 (the lanes above are unspecified).
IL_SIMD_INLINE VecF32 shift_down(VecF32 a, int n) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return {_mm256_permutevar8x32_ps(a.v, _mm256_add_epi32(lanes, _mm256_set1_epi32(n)))};
}
IL_SIMD_INLINE float reduce_max(VecF32 a) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(a.v), _mm256_extractf128_ps(a.v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace inferlab::kernels::cpu::avx2

#pragma GCC pop_options
