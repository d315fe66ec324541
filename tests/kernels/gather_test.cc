// Gather, GatherElements and GatherND: numpy results and index range checks.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Gather, TakesRowsWithNegativeIndices) {
  NodeRun gather{"Gather", 13, {{"axis", int_attr(1)}}};
  // np.take(np.arange(6).reshape(2,3), [[2, -3]], axis=1)
  const auto out =
      gather.run({make<int64_t>({0, 1, 2, 3, 4, 5}, {2, 3}), make<int64_t>({2, -3}, {1, 2})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 1, 2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{2, 0, 5, 3}));
}

TEST(Gather, ScalarIndexDropsTheAxis) {
  NodeRun gather{"Gather", 13};
  const auto out =
      gather.run({make<std::string>({"a", "b", "c"}, {3}), Tensor::scalar<int32_t>(1)});
  EXPECT_EQ(out[0].shape(), (Shape{}));
  EXPECT_EQ(out[0].data<std::string>()[0], "b");
  const auto bools = gather.run({make<bool>({true, false}, {2}), make<int64_t>({1, 1, 0}, {3})});
  EXPECT_EQ(values_of<bool>(bools[0]), (std::vector<bool>{false, false, true}));
}

TEST(Gather, RejectsOutOfRangeIndexNamingTheNode) {
  NodeRun gather{"Gather", 13};
  gather.name = "gather_7";
  expect_error(
      [&] {
        gather.run({make<float>({1, 2, 3}, {3}), make<int64_t>({3}, {1})});
      },
      ErrorCode::kOutOfRange, {"Gather node 'gather_7'", "index 3", "size 3"});
  expect_error(
      [&] {
        gather.run({make<float>({1, 2, 3}, {3}), make<int64_t>({-4}, {1})});
      },
      ErrorCode::kOutOfRange, {"index -4"});
}

TEST(Gather, ShapeRuleNeedsNoValues) {
  NodeRun gather{"Gather", 13, {{"axis", int_attr(0)}}};
  const auto out =
      gather.infer({{DataType::kFloat32, {5, 4}, nullptr}, {DataType::kInt64, {2, 3}, nullptr}});
  EXPECT_EQ(*out[0]->second, (Shape{2, 3, 4}));
}

TEST(GatherElements, PicksAlongAxis) {
  // np.take_along_axis([[1,2],[3,4]], [[0,0],[1,0]], axis=1)
  NodeRun gather{"GatherElements", 13, {{"axis", int_attr(1)}}};
  const auto out =
      gather.run({make<int32_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({0, 0, 1, -2}, {2, 2})});
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{1, 1, 4, 3}));
  expect_error(
      [&] {
        gather.run({make<int32_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({0, 2}, {1, 2})});
      },
      ErrorCode::kOutOfRange, {"GatherElements node 'node'", "index 2"});
}

TEST(GatherND, HandlesBatchDims) {
  NodeRun gather{"GatherND", 13, {{"batch_dims", int_attr(1)}}};
  // data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[1],[0]] -> [[2,3],[4,5]]
  const auto out = gather.run(
      {make<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}), make<int64_t>({1, 0}, {2, 1})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{2, 3, 4, 5}));
  NodeRun plain{"GatherND", 13};
  const auto elements =
      plain.run({make<int32_t>({0, 1, 2, 3}, {2, 2}), make<int64_t>({0, 0, 1, 1}, {2, 2})});
  EXPECT_EQ(values_of<int32_t>(elements[0]), (std::vector<int32_t>{0, 3}));
  expect_error(
      [&] {
        plain.run({make<int32_t>({0, 1, 2, 3}, {2, 2}), make<int64_t>({0, 5}, {1, 2})});
      },
      ErrorCode::kOutOfRange, {"GatherND node 'node'", "index 5"});
}

}  // namespace
}  // namespace inferlab::testing
