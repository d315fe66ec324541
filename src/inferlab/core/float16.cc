#include "inferlab/core/float16.h"

#include <bit>
#include <cmath>

namespace inferlab {

Float16 Float16::from_float(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return Float16{static_cast<uint16_t>(sign | 0x7e00u)};  // NaN
  if (abs >= 0x477ff000u) return Float16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow/inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale into the integer range and round to nearest even.
    const float magnitude = std::bit_cast<float>(abs);
    const float scaled = magnitude * 16777216.0f;  // 2^24: one unit = smallest subnormal
    const uint32_t rounded = static_cast<uint32_t>(std::nearbyint(scaled));
    return Float16{static_cast<uint16_t>(sign | rounded)};
  }
  const uint32_t exponent = ((abs >> 23) - 112u) << 10;
  const uint32_t mantissa = (abs >> 13) & 0x3ffu;
  uint32_t half = exponent | mantissa;
  const uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;
  return Float16{static_cast<uint16_t>(sign | half)};
}

float Float16::to_float() const {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) / 16777216.0f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

BFloat16 BFloat16::from_float(float value) {
  const uint32_t x = std::bit_cast<uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<uint16_t>((x >> 16) | 0x40u)};
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return BFloat16{static_cast<uint16_t>((x + rounding) >> 16)};
}

float BFloat16::to_float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

}  // namespace inferlab
