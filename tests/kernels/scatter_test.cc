// ScatterElements and ScatterND: replacement, reductions and index checks.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(ScatterElements, ReplacesAndAddsWithDuplicates) {
  const Tensor data = make<float>({1, 2, 3, 4, 5}, {1, 5});
  const Tensor indices = make<int64_t>({1, 1}, {1, 2});
  const Tensor updates = make<float>({1.1f, 2.1f}, {1, 2});
  NodeRun add{"ScatterElements", 16, {{"axis", int_attr(1)}, {"reduction", string_attr("add")}}};
  EXPECT_EQ(values_of<float>(add.run({data, indices, updates})[0]),
            (std::vector<float>{1, 2 + 1.1f + 2.1f, 3, 4, 5}));
  NodeRun replace{"ScatterElements", 13, {{"axis", int_attr(-1)}}};
  EXPECT_EQ(values_of<float>(replace.run({data, make<int64_t>({-1, 0}, {1, 2}), updates})[0]),
            (std::vector<float>{2.1f, 2, 3, 4, 1.1f}));
}

TEST(ScatterElements, RejectsOutOfRangeIndex) {
  NodeRun scatter{"ScatterElements", 13};
  expect_error(
      [&] {
        scatter.run({make<int64_t>({0, 0}, {2}), make<int64_t>({2}, {1}), make<int64_t>({1}, {1})});
      },
      ErrorCode::kOutOfRange, {"ScatterElements node 'node'", "index 2", "size 2"});
}

TEST(ScatterND, UpdatesSlicesAndMultiplies) {
  const Tensor data = make<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor indices = make<int64_t>({2, 0}, {2, 1});
  const Tensor updates = make<int64_t>({10, 20, 30, 40}, {2, 2});
  EXPECT_EQ(values_of<int64_t>(NodeRun{"ScatterND", 13}.run({data, indices, updates})[0]),
            (std::vector<int64_t>{30, 40, 3, 4, 10, 20}));
  NodeRun mul{"ScatterND", 16, {{"reduction", string_attr("mul")}}};
  EXPECT_EQ(values_of<int64_t>(mul.run({data, indices, updates})[0]),
            (std::vector<int64_t>{30, 80, 3, 4, 50, 120}));
  expect_error(
      [&] {
        NodeRun{"ScatterND", 13}.run({data, make<int64_t>({3, 0}, {2, 1}), updates});
      },
      ErrorCode::kOutOfRange, {"ScatterND node 'node'", "index 3"});
}

}  // namespace
}  // namespace inferlab::testing
