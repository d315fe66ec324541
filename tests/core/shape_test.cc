#include "inferlab/core/shape.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab {
namespace {

TEST(Shape, BroadcastsNumpyStyle) {
  EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}, "test"), (Shape{2, 3, 4}));
  EXPECT_EQ(broadcast_shapes({}, {5}, "test"), (Shape{5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 7}, "test"), (Shape{0, 7}));
}

TEST(Shape, RejectsIncompatibleBroadcastNamingTheCaller) {
  try {
    broadcast_shapes({2, 3}, {4}, "Add node 'a'");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("Add node 'a'"), std::string::npos);
  }
}

TEST(Shape, NumelDetectsOverflow) {
  EXPECT_THROW(shape_numel({int64_t{1} << 40, int64_t{1} << 40}), Error);
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({3, 0}), 0);
}

TEST(Shape, ParsesAndRejectsShapeText) {
  EXPECT_EQ(parse_shape("1,3,224,224", "--shape"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(parse_shape("2x5", "--shape"), (Shape{2, 5}));
  EXPECT_THROW(parse_shape("1,,3", "--shape"), Error);
  EXPECT_THROW(parse_shape("1,a", "--shape"), Error);
  EXPECT_THROW(parse_shape("-1,3", "--shape"), Error);
}

TEST(Shape, NormalizesNegativeAxes) {
  EXPECT_EQ(normalize_axis(-1, 4, "t"), 3);
  EXPECT_THROW(normalize_axis(4, 4, "t"), Error);
}

}  // namespace
}  // namespace inferlab
