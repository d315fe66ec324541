// 16 floats in a zmm register, with the operations of simd_portable.h.
// Everything here is compiled for AVX-512 (the pragma below) and inlined
// into the AVX-512 kernels; include it only from kernels_avx512.cc.
#pragma once

#include <immintrin.h>

#include <cstdint>

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")

namespace inferlab::kernels::cpu::avx512 {

#define IL_SIMD_INLINE inline __attribute__((always_inline))

struct VecF32 {
  static constexpr int kWidth = 16;
  using Mask = __mmask16;
  __m512 v;

  static IL_SIMD_INLINE __mmask16 first(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static IL_SIMD_INLINE VecF32 load(const float* p) { return {_mm512_loadu_ps(p)}; }
  // Lanes at and past `n` read as `fill` (and touch no memory).
  static IL_SIMD_INLINE VecF32 load_partial(const float* p, int n, float fill) {
    return {_mm512_mask_loadu_ps(_mm512_set1_ps(fill), first(n), p)};
  }
  static IL_SIMD_INLINE VecF32 set1(float x) { return {_mm512_set1_ps(x)}; }
  IL_SIMD_INLINE void store(float* p) const { _mm512_storeu_ps(p, v); }
  IL_SIMD_INLINE void store_partial(float* p, int n) const {
    _mm512_mask_storeu_ps(p, first(n), v);
  }
};

IL_SIMD_INLINE VecF32 operator+(VecF32 a, VecF32 b) { return {_mm512_add_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator-(VecF32 a, VecF32 b) { return {_mm512_sub_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator*(VecF32 a, VecF32 b) { return {_mm512_mul_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 operator/(VecF32 a, VecF32 b) { return {_mm512_div_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 fmadd(VecF32 a, VecF32 b, VecF32 c) {
  return {_mm512_fmadd_ps(a.v, b.v, c.v)};
}
// x86 rule: the second operand when either is NaN.
IL_SIMD_INLINE VecF32 min(VecF32 a, VecF32 b) { return {_mm512_min_ps(a.v, b.v)}; }
IL_SIMD_INLINE VecF32 max(VecF32 a, VecF32 b) { return {_mm512_max_ps(a.v, b.v)}; }
IL_SIMD_INLINE __mmask16 lt(VecF32 a, VecF32 b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ); }
IL_SIMD_INLINE __mmask16 gt(VecF32 a, VecF32 b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ); }
IL_SIMD_INLINE __mmask16 ge(VecF32 a, VecF32 b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_GE_OQ); }
IL_SIMD_INLINE VecF32 select(__mmask16 m, VecF32 t, VecF32 f) {
  return {_mm512_mask_blend_ps(m, f.v, t.v)};
}
IL_SIMD_INLINE VecF32 abs(VecF32 a) { return {_mm512_abs_ps(a.v)}; }
// 1 / a to about 1 ulp for finite a >= 1: the 14-bit estimate and one Newton
// step, a quarter of a division's issue cost.
IL_SIMD_INLINE VecF32 reciprocal(VecF32 a) {
  const __m512 r = _mm512_rcp14_ps(a.v);
  return {_mm512_mul_ps(r, _mm512_fnmadd_ps(a.v, r, _mm512_set1_ps(2.0f)))};
}
// a * 2^n for an integral n in [-126, 127], in one instruction.
IL_SIMD_INLINE VecF32 scale_pow2(VecF32 a, VecF32 n) { return {_mm512_scalef_ps(a.v, n.v)}; }
IL_SIMD_INLINE VecF32 copysign(VecF32 mag, VecF32 sign) {
  const __m512i sign_bit = _mm512_set1_epi32(INT32_MIN);
  const __m512i m = _mm512_andnot_si512(sign_bit, _mm512_castps_si512(mag.v));
  const __m512i s = _mm512_and_si512(sign_bit, _mm512_castps_si512(sign.v));
  return {_mm512_castsi512_ps(_mm512_or_si512(m, s))};
}
IL_SIMD_INLINE VecF32 round_nearest(VecF32 a) {
  return {_mm512_roundscale_ps(a.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
}
IL_SIMD_INLINE VecF32 pow2i(VecF32 n) {
  const __m512i e = _mm512_add_epi32(_mm512_cvtps_epi32(n.v), _mm512_set1_epi32(127));
  return {_mm512_castsi512_ps(_mm512_slli_epi32(e, 23))};
}
// p[2l] = a[l], p[2l + 1] = b[l] for the first n lanes.
IL_SIMD_INLINE void store_interleaved(VecF32 a, VecF32 b, float* p, int n) {
  const __m512i low = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i high =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const VecF32 first{_mm512_permutex2var_ps(a.v, low, b.v)};
  const VecF32 second{_mm512_permutex2var_ps(a.v, high, b.v)};
  if (n == 16) {
    first.store(p);
    second.store(p + 16);
    return;
  }
  first.store_partial(p, n >= 8 ? 16 : 2 * n);
  if (n > 8) second.store_partial(p + 16, 2 * n - 16);
}
IL_SIMD_INLINE float reduce_add(VecF32 a) { return _mm512_reduce_add_ps(a.v); }
// Lane i = the sum of v[i]'s lanes, for 16 vectors: a transposing tree of
// 15 adds, so a reduction per output costs about one operation.
IL_SIMD_INLINE VecF32 sum_each(const VecF32* v) {
  // The tree leaves lane 4q + j holding slot 4j + q: slots are fed transposed.
  __m512 pairs[8];
  for (int i = 0; i < 8; ++i) {
    const __m512 a = v[(2 * i) % 4 * 4 + (2 * i) / 4].v;
    const __m512 b = v[(2 * i + 1) % 4 * 4 + (2 * i + 1) / 4].v;
    pairs[i] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
  }
  __m512 quads[4];
  for (int i = 0; i < 4; ++i) {
    quads[i] = _mm512_add_ps(
        _mm512_shuffle_f32x4(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
        _mm512_shuffle_f32x4(pairs[2 * i], pairs[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
  __m512 halves[2];
  for (int i = 0; i < 2; ++i) {
    halves[i] =
        _mm512_add_ps(_mm512_shuffle_ps(quads[2 * i], quads[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                      _mm512_shuffle_ps(quads[2 * i], quads[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  return {_mm512_add_ps(_mm512_shuffle_ps(halves[0], halves[1], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm512_shuffle_ps(halves[0], halves[1], _MM_SHUFFLE(3, 1, 3, 1)))};
}
// 8 floats from p in both halves (a load-port broadcast: no shuffle).
IL_SIMD_INLINE VecF32 load_twice(const float* p) {
  return {_mm512_broadcast_f32x8(_mm256_loadu_ps(p))};
}
// Lane 2k + h = the sum of half h (8 lanes) of v[k], for 8 vectors: two
// outputs per vector halve the tree of sum_each per output.
IL_SIMD_INLINE VecF32 sum_halves_each(const VecF32* v) {
  __m512 quads[4];  // quarter q of quads[j]: the 4 partial sums of half q / 2 of v[2j + q % 2]
  for (int j = 0; j < 4; ++j) {
    const __m512 a = v[2 * j].v;
    const __m512 b = v[2 * j + 1].v;
    quads[j] = _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                             _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
  }
  __m512 halves[2];
  for (int i = 0; i < 2; ++i) {
    halves[i] =
        _mm512_add_ps(_mm512_shuffle_ps(quads[2 * i], quads[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                      _mm512_shuffle_ps(quads[2 * i], quads[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // Lane 4q + j holds output 4j + q: transposed back.
  const __m512 sums =
      _mm512_add_ps(_mm512_shuffle_ps(halves[0], halves[1], _MM_SHUFFLE(2, 0, 2, 0)),
                    _mm512_shuffle_ps(halves[0], halves[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return {_mm512_permutexvar_ps(order, sums)};
}
// Lane i = a[i + n] for i + n < 16 (the lanes above are unspecified).
IL_SIMD_INLINE VecF32 shift_down(VecF32 a, int n) {
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  return {_mm512_permutexvar_ps(_mm512_add_epi32(lanes, _mm512_set1_epi32(n)), a.v)};
}
IL_SIMD_INLINE float reduce_max(VecF32 a) { return _mm512_reduce_max_ps(a.v); }

}  // namespace inferlab::kernels::cpu::avx512

#pragma GCC pop_options
