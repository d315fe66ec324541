// panel_gemm_pack_f32 and panel_gemm_f32 of every ISA this CPU runs against
// a double-precision sum written here: rows around the six-row tiles (1-7,
// 12, 13), depths of one step, odd, and across the 128-row weight slices,
// one to three blocks of columns, the depth split over two calls (the
// second starting from the first's partial sums) and prefetching on or
// off. Columns of other blocks stay untouched.
#include <gtest/gtest.h>

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
  PanelGemmShape shape;
  std::vector<float> a, w, bias;  // a [rows, depth], w [depth, columns]
};

Problem make_problem(int64_t rows, int64_t depth, int64_t columns, uint32_t seed) {
  return {{rows, depth, columns},
          random_floats(rows * depth, seed),
          random_floats(depth * columns, seed + 1),
          random_floats(columns, seed + 2)};
}

// w [depth, columns] as the kernel's [columns / block][depth][block].
std::vector<float> pack_weights(const Problem& p, int64_t block) {
  std::vector<float> packed;
  for (int64_t b = 0; b < p.shape.columns / block; ++b) {
    for (int64_t k = 0; k < p.shape.depth; ++k) {
      for (int64_t j = 0; j < block; ++j) {
        packed.push_back(p.w[static_cast<size_t>(k * p.shape.columns + b * block + j)]);
      }
    }
  }
  return packed;
}

// Computes block `block` only, its depth in `parts` calls.
void expect_block_matches(const Problem& p, int64_t block, int parts, bool prefetch) {
  const PanelGemmShape& s = p.shape;
  for (Isa isa : supported_isas()) {
    const KernelTable& table = kernel_table(isa);
    const int64_t width = table.panel_gemm_block;
    const int64_t tiles = (s.rows + table.panel_gemm_rows - 1) / table.panel_gemm_rows;
    ASSERT_EQ(s.columns % width, 0) << "columns must be whole blocks of " << width;
    const std::vector<float> weights = pack_weights(p, width);
    std::vector<float> packed_a(static_cast<size_t>(tiles * table.panel_gemm_rows * s.depth));
    // Two halves of the tiles, as two threads pack them.
    table.panel_gemm_pack_f32(s, p.a.data(), packed_a.data(), 0, tiles / 2);
    table.panel_gemm_pack_f32(s, p.a.data(), packed_a.data(), tiles / 2, tiles);
    std::vector<float> y(static_cast<size_t>(s.rows * s.columns), kUntouched);
    int64_t k0 = 0;
    for (int part = 0; part < parts; ++part) {
      const int64_t k1 = part + 1 == parts ? s.depth : s.depth * (part + 1) / parts;
      // Any readable bytes will do: prefetching never changes results.
      const float* next = prefetch ? weights.data() : nullptr;
      const int64_t next_bytes =
          prefetch ? static_cast<int64_t>(weights.size() * sizeof(float)) : 0;
      table.panel_gemm_f32(s, packed_a.data(), weights.data(), p.bias.data(), y.data(), block, k0,
                           k1, next, next_bytes);
      k0 = k1;
    }
    const std::string label = std::string(isa_name(isa)) + " rows " + std::to_string(s.rows) +
                              " depth " + std::to_string(s.depth) + " columns " +
                              std::to_string(s.columns) + " block " + std::to_string(block) +
                              " in " + std::to_string(parts);
    for (int64_t r = 0; r < s.rows; ++r) {
      for (int64_t n = 0; n < s.columns; ++n) {
        const float actual = y[static_cast<size_t>(r * s.columns + n)];
        if (n / width != block) {
          ASSERT_EQ(actual, kUntouched) << label << " wrote column " << n;
          continue;
        }
        double sum = p.bias[static_cast<size_t>(n)];
        double magnitude = std::fabs(sum);
        for (int64_t k = 0; k < s.depth; ++k) {
          const double term = static_cast<double>(p.a[static_cast<size_t>(r * s.depth + k)]) *
                              p.w[static_cast<size_t>(k * s.columns + n)];
          sum += term;
          magnitude += std::fabs(term);
        }
        ASSERT_NEAR(actual, sum, 1e-6 * std::max(1.0, magnitude))
            << label << " at row " << r << " column " << n;
      }
    }
  }
}

// Columns: whole blocks of the widest ISA's block, which every narrower one divides.
int64_t widest_block() { return kernel_table(detected_isa()).panel_gemm_block; }

TEST(PanelGemm, MatchesTheSumAroundTheRowTiles) {
  uint32_t seed = 1;
  for (int64_t rows : {1, 2, 3, 4, 5, 6, 7, 12, 13}) {
    expect_block_matches(make_problem(rows, 37, widest_block(), seed), 0, 1, true);
    seed += 3;
  }
}

TEST(PanelGemm, MatchesTheSumAcrossTheWeightSlices) {
  uint32_t seed = 100;
  for (int64_t depth : {1, 16, 127, 128, 129, 300}) {
    for (int parts : {1, 2}) {
      if (depth < parts) continue;
      expect_block_matches(make_problem(7, depth, 2 * widest_block(), seed), 1, parts, true);
      seed += 3;
    }
  }
}

TEST(PanelGemm, EveryBlockWithAndWithoutPrefetching) {
  const Problem p = make_problem(9, 70, 3 * widest_block(), 200);
  for (int64_t block = 0; block < 3; ++block) {
    for (bool prefetch : {false, true}) expect_block_matches(p, block, 2, prefetch);
  }
}

}  // namespace
}  // namespace inferlab::kernels::cpu
