// The portable "vector": one float, with the same operations as the AVX2 and
// AVX-512 vectors (simd_avx2.h, simd_avx512.h), so the kernels in *.inc are
// written once and compiled for each. Comparison and min/max keep x86's NaN
// rules (min(a, b) = a < b ? a : b), so every ISA treats NaN the same way.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace inferlab::kernels::cpu::portable {

struct VecF32 {
  static constexpr int kWidth = 1;
  using Mask = bool;
  float v;

  static VecF32 load(const float* p) { return {*p}; }
  static VecF32 load_partial(const float* p, int, float) { return {*p}; }
  static VecF32 set1(float x) { return {x}; }
  void store(float* p) const { *p = v; }
  void store_partial(float* p, int) const { *p = v; }
};

inline VecF32 operator+(VecF32 a, VecF32 b) { return {a.v + b.v}; }
inline VecF32 operator-(VecF32 a, VecF32 b) { return {a.v - b.v}; }
inline VecF32 operator*(VecF32 a, VecF32 b) { return {a.v * b.v}; }
inline VecF32 operator/(VecF32 a, VecF32 b) { return {a.v / b.v}; }
// a * b + c, not fused: a library fma call would be far slower without FMA.
inline VecF32 fmadd(VecF32 a, VecF32 b, VecF32 c) { return {a.v * b.v + c.v}; }
inline VecF32 min(VecF32 a, VecF32 b) { return {a.v < b.v ? a.v : b.v}; }
inline VecF32 max(VecF32 a, VecF32 b) { return {a.v > b.v ? a.v : b.v}; }
inline bool lt(VecF32 a, VecF32 b) { return a.v < b.v; }
inline bool gt(VecF32 a, VecF32 b) { return a.v > b.v; }
inline bool ge(VecF32 a, VecF32 b) { return a.v >= b.v; }
inline VecF32 select(bool m, VecF32 t, VecF32 f) { return m ? t : f; }
inline VecF32 abs(VecF32 a) { return {std::fabs(a.v)}; }
inline VecF32 reciprocal(VecF32 a) { return {1.0f / a.v}; }
inline VecF32 copysign(VecF32 mag, VecF32 sign) { return {std::copysign(mag.v, sign.v)}; }
inline VecF32 round_nearest(VecF32 a) { return {std::nearbyint(a.v)}; }
// 2^n for an integral n in [-126, 127]. Callers pass NaN through (exp(NaN)
// and its kin): converting NaN or an out-of-range float to int is undefined
// behaviour, so n is bounded first (NaN to -126; the caller's result is NaN
// whatever this returns).
inline VecF32 pow2i(VecF32 n) {
  const float bounded = n.v > 127.0f ? 127.0f : (n.v >= -126.0f ? n.v : -126.0f);
  const auto bits = static_cast<uint32_t>(static_cast<int32_t>(bounded) + 127) << 23;
  return {std::bit_cast<float>(bits)};
}
// a * 2^n for an integral n in [-126, 127].
inline VecF32 scale_pow2(VecF32 a, VecF32 n) { return a * pow2i(n); }
// p[0] = a, p[1] = b (n is 1).
inline void store_interleaved(VecF32 a, VecF32 b, float* p, int) {
  p[0] = a.v;
  p[1] = b.v;
}
inline float reduce_add(VecF32 a) { return a.v; }
inline float reduce_max(VecF32 a) { return a.v; }
// Lane 0 = v[0]'s only lane.
inline VecF32 sum_each(const VecF32* v) { return v[0]; }
// A one-lane vector has no halves: these keep the shared kernel sources
// compiling; the portable kernels sum one output per vector (sum_each).
inline VecF32 load_twice(const float* p) { return {*p}; }
inline VecF32 sum_halves_each(const VecF32* v) { return v[0]; }
inline VecF32 shift_down(VecF32 a, int) { return a; }

}  // namespace inferlab::kernels::cpu::portable
