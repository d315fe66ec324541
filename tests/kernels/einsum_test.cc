// Einsum: equations against torch.einsum (batched matmul fast path, permuted
// output, trace, diagonal, ellipsis, implicit output, summed labels) and
// malformed equations.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

NodeRun einsum(const std::string& equation) {
  return NodeRun{"Einsum", 12, {{"equation", string_attr(equation)}}};
}

TEST(Einsum, BatchedMatmulMatchesTorch) {
  const auto y = einsum("bij,bjk->bik").run({pattern({2, 3, 4}), pattern({2, 4, 5}, 3)});
  expect_values(y[0], {2, 3, 5}, {0.53125,  -0.234375, 0.859375,  0.09375,   0.390625,  -0.015625,
                                  0.3125,   -0.15625,  0.171875,  -1.359375, 0.234375,  -0.203125,
                                  0.421875, -0.015625, -0.71875,  -0.203125, 1.78125,   -0.484375,
                                  0.171875, -0.765625, 0.140625,  -1.5625,   0.1875,    0.078125,
                                  0.234375, -0.046875, -0.921875, 0.328125,  -0.546875, 0.703125});
}

TEST(Einsum, PermutedOutputMatchesTorch) {
  const auto y = einsum("bij, bjk -> kbi").run({pattern({2, 3, 4}), pattern({2, 4, 5}, 3)});
  expect_values(y[0], {5, 2, 3}, {0.53125,   -0.015625, 0.234375,  -0.203125, 0.140625, -0.046875,
                                  -0.234375, 0.3125,    -0.203125, 1.78125,   -1.5625,  -0.921875,
                                  0.859375,  -0.15625,  0.421875,  -0.484375, 0.1875,   0.328125,
                                  0.09375,   0.171875,  -0.015625, 0.171875,  0.078125, -0.546875,
                                  0.390625,  -1.359375, -0.71875,  -0.765625, 0.234375, 0.703125});
}

TEST(Einsum, TraceDiagonalAndEllipsis) {
  expect_values(einsum("ii").run({pattern({3, 3}, 2)})[0], {}, {-0.25});
  expect_values(einsum("ii->i").run({pattern({3, 3}, 2)})[0], {3}, {-0.75, 0.625, -0.125});
  expect_values(einsum("...ii->...i").run({pattern({2, 3, 3}, 1)})[0], {2, 3},
                {-0.875, 0.5, -0.25, 0.625, -0.125, -0.875});
}

TEST(Einsum, ImplicitOutputAndSummedLabels) {
  expect_values(einsum("ij,jk").run({pattern({2, 3}), pattern({3, 2}, 1)})[0], {2, 2},
                {1.140625, -0.515625, 0.328125, 0.515625});
  expect_values(einsum("ij,k->jk").run({pattern({2, 3}), pattern({4}, 1)})[0], {3, 4},
                {1.3125, 0, -1.3125, 0.5625, -0.21875, 0, 0.21875, -0.09375, 0.109375, 0, -0.109375,
                 0.046875});
}

TEST(Einsum, WorksOnIntegers) {
  const auto y =
      einsum("i,i->").run({make<int64_t>({1, 2, 3}, {3}), make<int64_t>({4, 5, 6}, {3})});
  EXPECT_EQ(values_of<int64_t>(y[0]), (std::vector<int64_t>{32}));
}

TEST(Einsum, RejectsMalformedEquations) {
  const Tensor m = pattern({2, 3});
  expect_error([&] { einsum("ij,jk->ik").run({m}); }, ErrorCode::kInvalidModel,
               {"Einsum node 'node'", "operand terms"});
  expect_error([&] { einsum("i1->i").run({m}); }, ErrorCode::kInvalidModel,
               {"Einsum node 'node'", "invalid character"});
  expect_error([&] { einsum("ijk->i").run({m}); }, ErrorCode::kInvalidArgument,
               {"Einsum node 'node'", "does not match"});
  expect_error([&] { einsum("ij->iz").run({m}); }, ErrorCode::kInvalidModel,
               {"Einsum node 'node'", "'z'"});
  expect_error(
      [&] {
        einsum("ij,ij->i").run({m, pattern({3, 2})});
      },
      ErrorCode::kInvalidArgument, {"Einsum node 'node'", "label 'i'"});
}

}  // namespace
}  // namespace inferlab::testing
