// Gemm: transposes, alpha/beta, C broadcasting, integers, the blocked GEMM on
// sizes that are not multiples of its tiles, and errors.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

// y = alpha * op(a) * op(b) + beta * c (c broadcast from [n]) computed plainly.
Tensor plain_gemm(const Tensor& a, const Tensor& b, const Tensor& c, bool ta, bool tb, float alpha,
                  float beta) {
  const int64_t m = ta ? a.dim(1) : a.dim(0), k = ta ? a.dim(0) : a.dim(1);
  const int64_t n = tb ? b.dim(0) : b.dim(1);
  Tensor y(DataType::kFloat32, {m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const float av = ta ? a.data<float>()[p * m + i] : a.data<float>()[i * k + p];
        const float bv = tb ? b.data<float>()[j * k + p] : b.data<float>()[p * n + j];
        sum += double(av) * bv;
      }
      y.data<float>()[i * n + j] = static_cast<float>(alpha * sum + beta * c.data<float>()[j]);
    }
  return y;
}

TEST(Gemm, MatchesPlainLoopForEveryTransposeOnOddSizes) {
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const int64_t m = 37, n = 29, k = 301;
      NodeRun gemm{"Gemm",
                   13,
                   {{"transA", int_attr(ta)},
                    {"transB", int_attr(tb)},
                    {"alpha", float_attr(0.5f)},
                    {"beta", float_attr(2.0f)}}};
      const Tensor a = pattern(ta ? Shape{k, m} : Shape{m, k}, 1);
      const Tensor b = pattern(tb ? Shape{n, k} : Shape{k, n}, 2, 11);
      const Tensor c = pattern({n}, 3);
      const auto y = gemm.run({a, b, c});
      expect_close(y[0], plain_gemm(a, b, c, ta, tb, 0.5f, 2.0f));
    }
  }
}

TEST(Gemm, BroadcastsColumnAndScalarBiasAndAllowsNoBias) {
  NodeRun gemm{"Gemm", 13, {}};
  const Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  const Tensor b = make<float>({1, 0, 0, 1}, {2, 2});
  expect_values(gemm.run({a, b, make<float>({10, 20}, {2, 1})})[0], {2, 2}, {11, 12, 23, 24});
  expect_values(gemm.run({a, b, make<float>({5}, {})})[0], {2, 2}, {6, 7, 8, 9});
  expect_values(gemm.run({a, b, std::nullopt})[0], {2, 2}, {1, 2, 3, 4});
}

TEST(Gemm, MultipliesIntegers) {
  NodeRun gemm{"Gemm", 13, {{"transB", int_attr(1)}}};
  const auto y = gemm.run({make<int64_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({5, 6, 7, 8}, {2, 2}),
                           make<int64_t>({1}, {1})});
  EXPECT_EQ(values_of<int64_t>(y[0]), (std::vector<int64_t>{18, 24, 40, 54}));
}

TEST(Gemm, RejectsInnerDimMismatchNamingTheNode) {
  NodeRun gemm{"Gemm", 13, {}};
  expect_error(
      [&] {
        gemm.run({pattern({2, 3}), pattern({4, 2}), std::nullopt});
      },
      ErrorCode::kInvalidArgument, {"Gemm node 'node'", "inner dims"});
}

TEST(Gemm, RejectsBiasThatDoesNotBroadcast) {
  NodeRun gemm{"Gemm", 13, {}};
  expect_error(
      [&] {
        gemm.run({pattern({2, 3}), pattern({3, 2}), pattern({3})});
      },
      ErrorCode::kInvalidArgument, {"Gemm node 'node'", "C [3]"});
}

}  // namespace
}  // namespace inferlab::testing
