// The shared broadcasting helper: shapes, strides and the element walk on
// equal shapes, scalars, size-0 and size-1 dims and mixed broadcasts.
#include "inferlab/kernels/reference/broadcast.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace inferlab::kernels::reference {
namespace {

// (out_index, offset0, offset1) triples visited for two inputs.
std::vector<std::array<int64_t, 3>> walk(const Shape& out, const Shape& a, const Shape& b) {
  std::vector<std::array<int64_t, 3>> visited;
  for_each_broadcast<2>(out, {a, b}, [&](int64_t i, const std::array<int64_t, 2>& at) {
    visited.push_back({i, at[0], at[1]});
  });
  return visited;
}

TEST(Broadcast, StridesAreZeroOnBroadcastDims) {
  EXPECT_EQ(broadcast_strides({3, 1}, {2, 3, 4}), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(broadcast_strides({}, {2, 2}), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(broadcast_strides({2, 4}, {2, 4}), (std::vector<int64_t>{4, 1}));
}

TEST(Broadcast, EqualShapesAndScalarsWalkLinearly) {
  const auto same = walk({2, 2}, {2, 2}, {});
  ASSERT_EQ(same.size(), 4u);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(same[i], (std::array<int64_t, 3>{i, i, 0}));
  const auto scalar = walk({}, {}, {1});
  ASSERT_EQ(scalar.size(), 1u);
  EXPECT_EQ(scalar[0], (std::array<int64_t, 3>{0, 0, 0}));
}

TEST(Broadcast, MixedShapesFollowNumpy) {
  // a: [2, 1] column, b: [3] row -> out [2, 3]
  const auto visited = walk({2, 3}, {2, 1}, {3});
  const std::vector<std::array<int64_t, 3>> expected{{0, 0, 0}, {1, 0, 1}, {2, 0, 2},
                                                     {3, 1, 0}, {4, 1, 1}, {5, 1, 2}};
  EXPECT_EQ(visited, expected);
}

TEST(Broadcast, InnerBroadcastDimension) {
  // a: [2, 3, 1], b: [1, 3, 2] -> out [2, 3, 2]
  const auto visited = walk({2, 3, 2}, {2, 3, 1}, {1, 3, 2});
  ASSERT_EQ(visited.size(), 12u);
  EXPECT_EQ(visited[7], (std::array<int64_t, 3>{7, 3, 1}));    // (1,0,1)
  EXPECT_EQ(visited[11], (std::array<int64_t, 3>{11, 5, 5}));  // (1,2,1)
}

TEST(Broadcast, ZeroSizedOutputVisitsNothing) { EXPECT_TRUE(walk({0, 3}, {0, 1}, {3}).empty()); }

TEST(Broadcast, IncompatibleShapesNameTheNode) {
  const model::AttributeMap attributes;
  const std::string name = "add_7";
  const std::string op = "Add";
  const NodeInfo node(name, op, 13, attributes);
  try {
    broadcast_all(node, {{2, 3}, {4}});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("Add node 'add_7'"), std::string::npos);
  }
  EXPECT_EQ(broadcast_all(node, {{2, 1, 4}, {3, 1}, {}}), (Shape{2, 3, 4}));
}

}  // namespace
}  // namespace inferlab::kernels::reference
