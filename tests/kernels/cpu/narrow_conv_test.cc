// narrow_conv_f32 of every ISA this CPU runs against a double-precision sum
// written here: widths around the pixel tiles (1-11, 15-17, 25: the tail
// tiles and the edge tiles that read padding), heights 1-5, symmetric,
// asymmetric and no padding, input channels of one step (8) to twelve,
// output channel counts of one to ten blocks, and a row range that must
// leave the other rows untouched.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "kernels/cpu/cpu_test_util.h"

namespace inferlab::kernels::cpu {
namespace {

constexpr float kUntouched = -12345.0f;

struct Problem {
  NarrowConvShape shape;
  std::vector<float> x, weights, bias;  // x [H, W, C], weights ONNX's [M, C, 3, 3]
};

// pads: top, left, bottom, right.
Problem make_problem(int64_t channels, int64_t outputs, int64_t height, int64_t width,
                     std::array<int64_t, 4> pads, uint32_t seed) {
  Problem p;
  p.shape = {channels,
             outputs,
             height,
             width,
             height + pads[0] + pads[2] - 2,
             width + pads[1] + pads[3] - 2,
             pads[0],
             pads[1]};
  p.x = random_floats(height * width * channels, seed);
  p.weights = random_floats(outputs * channels * 9, seed + 1);
  p.bias = random_floats(outputs, seed + 2);
  return p;
}

// ONNX's [M, C, 3, 3] as the kernel's [M / O][3][C / S][3][O / G][G][S].
std::vector<float> pack(const Problem& p, const KernelTable& table) {
  const int64_t block = table.narrow_conv_outputs;
  const int64_t step = table.narrow_conv_channels;
  const int64_t c_count = p.shape.channels;
  std::vector<float> packed(p.weights.size());
  size_t at = 0;
  for (int64_t b = 0; b < p.shape.out_channels / block; ++b) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t cb = 0; cb < c_count / step; ++cb) {
        for (int64_t j = 0; j < 3; ++j) {
          // o = pair * narrow_conv_group + half: [O / G][G] is [O].
          for (int64_t o = 0; o < block; ++o) {
            for (int64_t l = 0; l < step; ++l) {
              const int64_t m = b * block + o;
              const int64_t c = cb * step + l;
              packed[at++] = p.weights[static_cast<size_t>((m * c_count + c) * 9 + i * 3 + j)];
            }
          }
        }
      }
    }
  }
  return packed;
}

// The sum, and the sum of its terms' magnitudes (float32 rounding grows with it).
std::pair<double, double> expected_at(const Problem& p, int64_t oh, int64_t ow, int64_t m) {
  const NarrowConvShape& s = p.shape;
  double sum = p.bias[static_cast<size_t>(m)];
  double magnitude = std::fabs(sum);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const int64_t ih = oh + i - s.pad_top;
      const int64_t iw = ow + j - s.pad_left;
      if (ih < 0 || ih >= s.in_h || iw < 0 || iw >= s.in_w) continue;
      for (int64_t c = 0; c < s.channels; ++c) {
        const double term =
            static_cast<double>(p.x[static_cast<size_t>((ih * s.in_w + iw) * s.channels + c)]) *
            p.weights[static_cast<size_t>((m * s.channels + c) * 9 + i * 3 + j)];
        sum += term;
        magnitude += std::fabs(term);
      }
    }
  }
  return {sum, magnitude};
}

// Runs output rows [row_begin, row_end) and checks every output element:
// the sum in those rows, kUntouched elsewhere.
void expect_matches(const Problem& p, int64_t row_begin, int64_t row_end) {
  const NarrowConvShape& s = p.shape;
  const std::vector<float> zeros(static_cast<size_t>(s.channels), 0.0f);
  for (Isa isa : supported_isas()) {
    const KernelTable& table = kernel_table(isa);
    ASSERT_EQ(s.channels % table.narrow_conv_channels, 0);
    ASSERT_EQ(s.out_channels % table.narrow_conv_outputs, 0);
    const std::vector<float> weights = pack(p, table);
    std::vector<float> y(static_cast<size_t>(s.out_h * s.out_w * s.out_channels), kUntouched);
    table.narrow_conv_f32(s, p.x.data(), weights.data(), p.bias.data(), zeros.data(), y.data(),
                          row_begin, row_end);
    const std::string label = std::string(isa_name(isa)) + " C=" + std::to_string(s.channels) +
                              " M=" + std::to_string(s.out_channels) + " in " +
                              std::to_string(s.in_h) + "x" + std::to_string(s.in_w) + " pads " +
                              std::to_string(s.pad_top) + "," + std::to_string(s.pad_left);
    for (int64_t oh = 0; oh < s.out_h; ++oh) {
      const bool computed = oh >= row_begin && oh < row_end;
      for (int64_t ow = 0; ow < s.out_w; ++ow) {
        for (int64_t m = 0; m < s.out_channels; ++m) {
          const float actual = y[static_cast<size_t>((oh * s.out_w + ow) * s.out_channels + m)];
          if (!computed) {
            ASSERT_EQ(actual, kUntouched) << label << " wrote row " << oh;
            continue;
          }
          const auto [expected, magnitude] = expected_at(p, oh, ow, m);
          ASSERT_NEAR(actual, expected, 1e-6 * std::max(1.0, magnitude))
              << label << " at oh=" << oh << " ow=" << ow << " m=" << m;
        }
      }
    }
  }
}

TEST(NarrowConv, MatchesTheSumAroundThePixelTiles) {
  uint32_t seed = 1;
  for (int64_t width : {1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 15, 16, 17, 25}) {
    for (int64_t height : {1, 2, 5}) {
      expect_matches(make_problem(32, 24, height, width, {1, 1, 1, 1}, seed), 0, height);
      seed += 3;
    }
  }
}

TEST(NarrowConv, MatchesTheSumForEveryPadding) {
  uint32_t seed = 100;
  for (std::array<int64_t, 4> pads : {std::array<int64_t, 4>{0, 0, 0, 0},
                                      {1, 0, 0, 1},
                                      {0, 1, 1, 0},
                                      {2, 2, 2, 2},
                                      {2, 1, 0, 2}}) {
    const Problem p = make_problem(16, 8, 6, 11, pads, seed);
    expect_matches(p, 0, p.shape.out_h);
    seed += 3;
  }
}

TEST(NarrowConv, MatchesTheSumForEveryBlockCount) {
  uint32_t seed = 200;
  for (int64_t outputs : {8, 16, 24, 40}) {
    for (int64_t channels : {8, 24, 48, 96}) {
      expect_matches(make_problem(channels, outputs, 3, 13, {1, 1, 1, 1}, seed), 0, 3);
      seed += 3;
    }
  }
}

TEST(NarrowConv, WritesOnlyTheRowsItIsGiven) {
  const Problem p = make_problem(32, 16, 7, 10, {1, 1, 1, 1}, 300);
  expect_matches(p, 1, 4);
  expect_matches(p, 6, 7);
}

}  // namespace
}  // namespace inferlab::kernels::cpu
