#include "inferlab/core/float16.h"

#include <gtest/gtest.h>

#include <cmath>

namespace inferlab {
namespace {

TEST(Float16, RoundTripsRepresentableValues) {
  for (float value : {0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f}) {
    EXPECT_EQ(Float16::from_float(value).to_float(), value) << value;
  }
}

TEST(Float16, RoundsToNearestEvenAndSaturatesToInfinity) {
  EXPECT_EQ(Float16::from_float(1.0f + 1.0f / 2048.0f).bits, 0x3c00);  // tie -> even
  EXPECT_EQ(Float16::from_float(1.0f + 3.0f / 2048.0f).bits, 0x3c02);  // tie -> even (up)
  EXPECT_TRUE(std::isinf(Float16::from_float(1e6f).to_float()));
  EXPECT_TRUE(std::isnan(Float16::from_float(NAN).to_float()));
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(BFloat16::from_float(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16::from_float(3.0f).to_float(), 3.0f);
  EXPECT_TRUE(std::isnan(BFloat16::from_float(NAN).to_float()));
}

}  // namespace
}  // namespace inferlab
