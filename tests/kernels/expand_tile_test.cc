// Expand and Tile against numpy broadcast_to / tile.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Expand, BroadcastsBothWays) {
  NodeRun expand{"Expand", 13};
  const auto out = expand.run({make<int32_t>({1, 2, 3}, {3, 1}), make<int64_t>({2, 1, 2}, {3})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
  const auto strings = expand.run({make<std::string>({"s"}, {}), make<int64_t>({2}, {1})});
  EXPECT_EQ(values_of<std::string>(strings[0]), (std::vector<std::string>{"s", "s"}));
  expect_error(
      [&] {
        expand.run({make<int32_t>({1, 2, 3}, {3}), make<int64_t>({2}, {1})});
      },
      ErrorCode::kInvalidArgument, {"Expand node 'node'"});
}

TEST(Tile, RepeatsEachAxis) {
  NodeRun tile{"Tile", 13};
  const auto out = tile.run({make<int64_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({2, 1}, {2})});
  EXPECT_EQ(out[0].shape(), (Shape{4, 2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{1, 2, 3, 4, 1, 2, 3, 4}));
  const auto wide = tile.run({make<bool>({true, false}, {2}), make<int64_t>({3}, {1})});
  EXPECT_EQ(values_of<bool>(wide[0]), (std::vector<bool>{true, false, true, false, true, false}));
  EXPECT_EQ(tile.run({make<float>({1}, {1}), make<int64_t>({0}, {1})})[0].shape(), (Shape{0}));
}

}  // namespace
}  // namespace inferlab::testing
