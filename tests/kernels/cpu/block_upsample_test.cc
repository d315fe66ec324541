// block_upsample_f32 of every ISA this CPU runs against a double-precision
// sum written here: widths around the vector widths and the 4-vector blocks
// (1, 7, 15-17, 31, 33, 60, 64, 65, 100), an odd number of output channels (the
// one-channel tail), kernels 1x1, 2x2, 3x2 and 2x3 (kw other than 1 and 2
// takes the scalar path), fused activations, and a row range that must
// leave the other rows untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "inferlab/core/shape.h"
#include "inferlab/kernels/cpu/kernel_table.h"
#include "kernels/cpu/cpu_test_util.h"

namespace inferlab::kernels::cpu {
namespace {

constexpr float kUntouched = -12345.0f;

struct Problem {
  BlockUpsampleShape shape;
  std::vector<float> x, weights, bias;
};

Problem make_problem(const BlockUpsampleShape& s, uint32_t seed) {
  Problem p{s, {}, {}, {}};
  p.x = random_floats(s.channels * s.height * s.width, seed);
  p.weights = random_floats(s.kernel_h * s.out_channels * s.channels * s.kernel_w, seed + 1);
  p.bias = random_floats(s.out_channels, seed + 2);
  return p;
}

double expected_at(const Problem& p, int64_t m, int64_t oh, int64_t ow, UnaryKind kind) {
  const BlockUpsampleShape& s = p.shape;
  const int64_t h = oh / s.kernel_h, i = oh % s.kernel_h;
  const int64_t w = ow / s.kernel_w, j = ow % s.kernel_w;
  double sum = p.bias[m];
  for (int64_t c = 0; c < s.channels; ++c) {
    sum += static_cast<double>(p.x[(c * s.height + h) * s.width + w]) *
           p.weights[((i * s.out_channels + m) * s.channels + c) * s.kernel_w + j];
  }
  if (kind == UnaryKind::kRelu) return sum > 0 ? sum : 0;
  if (kind == UnaryKind::kSigmoid) return 1.0 / (1.0 + std::exp(-sum));
  return sum;
}

// Runs rows [row_begin, row_end) and checks every output element: the
// sum in those rows, kUntouched elsewhere.
void expect_matches(const Problem& p, UnaryKind kind, int64_t row_begin, int64_t row_end) {
  const BlockUpsampleShape& s = p.shape;
  const int64_t out_h = s.height * s.kernel_h, out_w = s.width * s.kernel_w;
  for (Isa isa : supported_isas()) {
    std::vector<float> y(static_cast<size_t>(s.out_channels * out_h * out_w), kUntouched);
    std::vector<float> scratch(
        static_cast<size_t>(s.channels * block_upsample_stride(s.width) + 16));
    kernel_table(isa).block_upsample_f32(kind, {}, s, p.x.data(), p.weights.data(), p.bias.data(),
                                         y.data(), row_begin, row_end, scratch.data());
    const std::string label = std::string(isa_name(isa)) + " C=" + std::to_string(s.channels) +
                              " M=" + std::to_string(s.out_channels) +
                              " W=" + std::to_string(s.width) + " k=" + std::to_string(s.kernel_h) +
                              "x" + std::to_string(s.kernel_w);
    for (int64_t m = 0; m < s.out_channels; ++m) {
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const bool computed = oh / s.kernel_h >= row_begin && oh / s.kernel_h < row_end;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const float actual = y[static_cast<size_t>((m * out_h + oh) * out_w + ow)];
          if (!computed) {
            ASSERT_EQ(actual, kUntouched) << label << " wrote row " << oh;
            continue;
          }
          const double expected = expected_at(p, m, oh, ow, kind);
          ASSERT_NEAR(actual, expected, 2e-5 * std::max(1.0, std::fabs(expected)))
              << label << " at m=" << m << " oh=" << oh << " ow=" << ow;
        }
      }
    }
  }
}

TEST(BlockUpsample, MatchesTheSumAroundTheVectorWidths) {
  uint32_t seed = 1;
  // 60 and 31 leave four vectors after the last whole block of four
  // (AVX-512 and AVX2): a tail that once went uncomputed.
  for (int64_t width : {1, 7, 15, 16, 17, 31, 33, 60, 64, 65, 100}) {
    for (int64_t out_channels : {1, 2, 3}) {
      const Problem p = make_problem({5, out_channels, 3, width, 2, 2}, seed++);
      expect_matches(p, UnaryKind::kIdentity, 0, 3);
    }
  }
}

TEST(BlockUpsample, MatchesTheSumForEveryKernelShape) {
  uint32_t seed = 50;
  for (auto [kh, kw] : {std::pair{1, 1}, {2, 2}, {3, 2}, {2, 3}, {1, 4}}) {
    const Problem p = make_problem({24, 5, 2, 37, kh, kw}, seed++);
    expect_matches(p, UnaryKind::kIdentity, 0, 2);
  }
}

TEST(BlockUpsample, AppliesTheFusedActivation) {
  const Problem p = make_problem({3, 4, 2, 21, 2, 2}, 70);
  expect_matches(p, UnaryKind::kRelu, 0, 2);
  expect_matches(p, UnaryKind::kSigmoid, 0, 2);
}

TEST(BlockUpsample, WritesOnlyTheRowsItIsGiven) {
  const Problem p = make_problem({6, 3, 5, 19, 2, 2}, 80);
  expect_matches(p, UnaryKind::kIdentity, 1, 4);
  expect_matches(p, UnaryKind::kIdentity, 4, 5);
}

// Feature-map planes a multiple of 4 KiB apart (the case packing is for):
// the results do not depend on where the planes lie.
TEST(BlockUpsample, MatchesTheSumOnPlanesAMultipleOf4KiBApart) {
  const Problem p = make_problem({24, 4, 4, 256, 2, 2}, 90);
  expect_matches(p, UnaryKind::kIdentity, 0, 4);
}

}  // namespace
}  // namespace inferlab::kernels::cpu
