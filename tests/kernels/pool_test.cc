// AveragePool, MaxPool and the global pools: values against torch (ceil_mode,
// count_include_pad, argmax indices), integer MaxPool, errors.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

model::AttributeMap pool_attrs(int64_t ceil_mode, int64_t count_include_pad) {
  return {{"kernel_shape", ints_attr({3, 3})},
          {"strides", ints_attr({2, 2})},
          {"pads", ints_attr({1, 1, 1, 1})},
          {"ceil_mode", int_attr(ceil_mode)},
          {"count_include_pad", int_attr(count_include_pad)}};
}

TEST(MaxPool, MatchesTorchValuesAndIndicesInCeilMode) {
  model::AttributeMap attrs = pool_attrs(1, 0);
  attrs.erase("count_include_pad");
  NodeRun pool{"MaxPool", 12, attrs};
  const auto out = pool.run({pattern({1, 2, 5, 5}, 1, 13)}, 2);
  expect_values(out[0], {1, 2, 3, 3},
                {0.25, 0.375, 0.5, 0.25, 0.375, 0.5, 0.375, 0.5, 0.25, 0.25, 0.375, 0.375, 0.5,
                 0.375, 0.375, 0.375, 0.5, 0.5});
  // torch's indices are per plane; ONNX's count from the tensor start (plane 1 adds 25).
  const std::vector<int64_t> plane_indices = {5, 7, 9, 5,  7, 9, 20, 22, 18,
                                              6, 8, 8, 10, 8, 8, 21, 23, 23};
  for (size_t i = 0; i < plane_indices.size(); ++i) {
    EXPECT_EQ(out[1].data<int64_t>()[i], plane_indices[i] + (i >= 9 ? 25 : 0)) << i;
  }
}

TEST(MaxPool, ColumnMajorStorageOrderTransposesIndices) {
  NodeRun pool{
      "MaxPool", 12, {{"kernel_shape", ints_attr({2, 2})}, {"storage_order", int_attr(1)}}};
  // 2x3 input, max of the right window at (row 1, col 2) -> column-major 2 * 2 + 1 = 5.
  const auto out = pool.run({make<float>({0, 1, 2, 3, 4, 9}, {1, 1, 2, 3})}, 2);
  EXPECT_EQ(out[1].data<int64_t>()[0], 3);  // (1, 1) -> 1 * 2 + 1
  EXPECT_EQ(out[1].data<int64_t>()[1], 5);
}

TEST(MaxPool, SupportsUint8AndDilations) {
  NodeRun pool{"MaxPool", 12, {{"kernel_shape", ints_attr({2})}, {"dilations", ints_attr({2})}}};
  const auto out = pool.run({make<uint8_t>({1, 9, 3, 4, 200}, {1, 1, 5})});
  EXPECT_EQ(values_of<uint8_t>(out[0]), (std::vector<uint8_t>{3, 9, 200}));
}

TEST(AveragePool, MatchesTorchIncludingPadInCeilMode) {
  NodeRun pool{"AveragePool", 11, pool_attrs(1, 1)};
  const auto out = pool.run({pattern({1, 2, 5, 5}, 1, 13)});
  expect_values(
      out[0], {1, 2, 3, 3},
      {-0.125, -0.125, -0.0416666667, -0.236111111, -0.305555556, -0.111111111, -0.0694444444,
       -0.0416666667, -0.166666667, -0.152777778, -0.166666667, -0.0694444444, -0.0972222222,
       -0.277777778, -0.152777778, -0.0972222222, -0.0833333333, -0.0138888889});
}

TEST(AveragePool, MatchesTorchExcludingPad) {
  NodeRun pool{"AveragePool", 11, pool_attrs(0, 0)};
  const auto out = pool.run({pattern({1, 2, 5, 5}, 1, 13)});
  expect_values(out[0], {1, 2, 3, 3},
                {-0.28125, -0.1875, -0.09375, -0.354166667, -0.305555556, -0.166666667, -0.15625,
                 -0.0625, -0.375, -0.34375, -0.25, -0.15625, -0.145833333, -0.277777778,
                 -0.229166667, -0.21875, -0.125, -0.03125});
}

TEST(AveragePool, RejectsMissingKernelShapeAndLowRank) {
  NodeRun pool{"AveragePool", 11, {}};
  expect_error(
      [&] {
        pool.run({pattern({1, 1, 4, 4})});
      },
      ErrorCode::kInvalidModel, {"AveragePool node 'node'", "kernel_shape"});
  NodeRun pool2{"AveragePool", 11, {{"kernel_shape", ints_attr({2})}}};
  expect_error(
      [&] {
        pool2.run({pattern({4, 4})});
      },
      ErrorCode::kInvalidArgument, {"AveragePool node 'node'", "rank"});
}

TEST(GlobalPool, AveragesAndMaximizesEveryPlane) {
  const Tensor x = make<float>({1, 2, 3, 4, -1, -2, -3, -8}, {1, 2, 2, 2});
  const auto avg = NodeRun{"GlobalAveragePool", 11, {}}.run({x});
  expect_values(avg[0], {1, 2, 1, 1}, {2.5, -3.5});
  const auto max = NodeRun{"GlobalMaxPool", 11, {}}.run({x});
  expect_values(max[0], {1, 2, 1, 1}, {4, -1});
}

}  // namespace
}  // namespace inferlab::testing
