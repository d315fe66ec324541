// IEEE half precision and bfloat16 as storage types with exact conversions to
// and from float (round to nearest even), for Cast/CastLike and tensor files.
#pragma once

#include <cstdint>

namespace inferlab {

struct Float16 {
  uint16_t bits = 0;
  static Float16 from_float(float value);
  float to_float() const;
};

struct BFloat16 {
  uint16_t bits = 0;
  static BFloat16 from_float(float value);
  float to_float() const;
};

}  // namespace inferlab
