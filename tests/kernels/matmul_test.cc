// MatMul: numpy semantics (1-D promotion, batch broadcasting), integer types,
// and mismatch errors.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(MatMul, PromotesVectorsLikeNumpy) {
  NodeRun matmul{"MatMul", 13, {}};
  const Tensor v = make<float>({1, 2}, {2});
  const Tensor m = make<float>({1, 2, 3, 4}, {2, 2});
  expect_values(matmul.run({v, m})[0], {2}, {7, 10});
  expect_values(matmul.run({m, v})[0], {2}, {5, 11});
  expect_values(matmul.run({v, v})[0], {}, {5});
}

TEST(MatMul, BroadcastsBatchDims) {
  NodeRun matmul{"MatMul", 13, {}};
  // A [2, 1, 2, 2] (two batches) x B [3, 2, 1] (three batches) -> [2, 3, 2, 1]
  const Tensor a = make<float>({1, 0, 0, 1, 2, 0, 0, 2}, {2, 1, 2, 2});
  const Tensor b = make<float>({1, 2, 3, 4, 5, 6}, {3, 2, 1});
  expect_values(matmul.run({a, b})[0], {2, 3, 2, 1}, {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12});
}

TEST(MatMul, SharedRightOperandFoldsBatchIntoRows) {
  NodeRun matmul{"MatMul", 13, {}};
  const Tensor a = pattern({3, 5, 7});
  const Tensor b = pattern({7, 4}, 2);
  const auto y = matmul.run({a, b});
  ASSERT_EQ(y[0].shape(), (Shape{3, 5, 4}));
  for (int64_t r = 0; r < 15; ++r) {
    for (int64_t j = 0; j < 4; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < 7; ++p)
        sum += a.data<float>()[r * 7 + p] * b.data<float>()[p * 4 + j];
      EXPECT_NEAR(y[0].data<float>()[r * 4 + j], sum, 1e-5);
    }
  }
}

TEST(MatMul, MultipliesIntegerTypes) {
  NodeRun matmul{"MatMul", 13, {}};
  const auto y32 =
      matmul.run({make<int32_t>({1, 2, 3, 4}, {2, 2}), make<int32_t>({-1, 1}, {2, 1})});
  EXPECT_EQ(values_of<int32_t>(y32[0]), (std::vector<int32_t>{1, 1}));
  const auto yu64 = matmul.run({make<uint64_t>({2, 3}, {1, 2}), make<uint64_t>({4, 5}, {2, 1})});
  EXPECT_EQ(values_of<uint64_t>(yu64[0]), (std::vector<uint64_t>{23}));
}

TEST(MatMul, RejectsInnerDimMismatchNamingTheNode) {
  NodeRun matmul{"MatMul", 13, {}};
  expect_error(
      [&] {
        matmul.run({pattern({2, 3}), pattern({4, 2})});
      },
      ErrorCode::kInvalidArgument, {"MatMul node 'node'", "3 columns"});
}

TEST(MatMul, RejectsIncompatibleBatchDims) {
  NodeRun matmul{"MatMul", 13, {}};
  expect_error(
      [&] {
        matmul.run({pattern({2, 2, 3}), pattern({3, 3, 2})});
      },
      ErrorCode::kInvalidArgument, {"MatMul node 'node'"});
}

}  // namespace
}  // namespace inferlab::testing
