// MatMul, Gemm, FusedMatMul, FusedGemm and Attention on the oneDNN-backed
// kernels and InferLab's gemv and panel_gemm against their reference
// kernels, through the calls a run plan makes (dnnl_test_harness.h): batch
// broadcasting, constant or run-time B and bias, Gemm's transposes and
// every C shape, the fused activations, which form each product takes,
// and the prepacked copies standing for the weights.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/registry.h"
#include "kernels/cpu/cpu_test_util.h"
#include "kernels/dnnl/dnnl_test_harness.h"
#include "kernels/tensor_ops_harness.h"
#include "test_util.h"

namespace inferlab::kernels {
namespace {

using dnnl_testing::Case;
using dnnl_testing::expect_copy_stands_for_the_weights;
using dnnl_testing::expect_matches_reference;
using dnnl_testing::fast_registry;
using dnnl_testing::Outcome;
using dnnl_testing::run;
using inferlab::testing::floats_attr;
using inferlab::testing::int_attr;
using inferlab::testing::random_float_tensor;
using inferlab::testing::string_attr;

TEST(DnnlMatMul, MatMulMatchesWithBatchBroadcastingAndConstantOrRunTimeB) {
  struct MatMulCase {
    std::string label;
    Shape a;
    Shape b;
  };
  const std::vector<MatMulCase> cases = {
      {"2-D", {7, 33}, {33, 17}},
      {"1 row", {1, 768}, {768, 768}},
      {"3-D by 2-D", {2, 5, 16}, {16, 31}},
      {"batched", {3, 4, 9}, {3, 9, 5}},
      {"batch broadcast", {2, 1, 6, 8}, {3, 8, 5}},
      {"4-D by 3-D of batch 1", {2, 3, 6, 8}, {1, 8, 5}},
  };
  uint32_t seed = 700;
  for (const MatMulCase& m : cases) {
    for (bool constant_b : {true, false}) {
      Case c{
          "", "MatMul", {}, {random_float_tensor(m.a, seed), random_float_tensor(m.b, seed + 1)}};
      if (!constant_b) c.constants = {};
      expect_matches_reference(c, m.label + (constant_b ? " constant B" : " run-time B"));
      seed += 2;
    }
  }
}

// [..., M, K] x [K, N] runs as one 2-D product, the only form for which
// oneDNN 2.6 prepacks B into a blocked layout (with AVX-512: its AVX2 gemm
// takes B plain): a 3-D one kept it plain and ran at half the speed. (300
// rows: with fewer, B runs on InferLab's panel_gemm.)
TEST(DnnlMatMul, AConstantBOfABatchedProductIsPrepackedBlocked) {
  for (const Shape& b : {Shape{768, 256}, Shape{1, 768, 256}}) {
    const Case c{
        "", "MatMul", {}, {random_float_tensor({1, 300, 768}, 5), random_float_tensor(b, 6)}};
    std::shared_ptr<KernelState> cache;
    ASSERT_TRUE(run(fast_registry(), c, true, &cache).prepared);
    const auto* packed = dynamic_cast<const PackedConstants*>(cache.get());
    ASSERT_NE(packed, nullptr);
    const std::vector<PackedCopy> copies = packed->copies();
    ASSERT_EQ(copies.size(), 1u);
    dnnl_memory_desc_t layout;
    ASSERT_EQ(copies[0].layout.size(), sizeof(layout));
    std::memcpy(&layout, copies[0].layout.data(), sizeof(layout));
    EXPECT_EQ(layout.ndims, 2) << shape_to_string(b);
    if (dnnl_backend::dnnl_isa_name().rfind("avx512", 0) == 0) {  // brgemm's layout
      EXPECT_GT(layout.format_desc.blocking.inner_nblks, 0) << shape_to_string(b) << ": plain";
    }
  }
}

// FusedMatMul over a folded product with its bias known at prepare or only
// at run time (a post-op then).
TEST(DnnlMatMul, AFoldedProductAddsAConstantOrRunTimeBias) {
  const Tensor a = random_float_tensor({2, 3, 24}, 30);
  const Tensor b = random_float_tensor({24, 40}, 31);
  const Tensor bias = random_float_tensor({40}, 32);
  expect_matches_reference({"ai.inferlab", "FusedMatMul", {}, {a, b, bias}}, "constant bias");
  expect_matches_reference({"ai.inferlab", "FusedMatMul", {}, {a, b, bias}, {1}}, "run-time bias");
}

// One row of A with a constant B runs on InferLab's gemv (prepare says so
// through the state's implementation): sizes around the vector widths and
// the four-row blocks, both Gemm transposes, a constant C, MatMul with 1-D,
// 2-D and 3-D A, and the fused activation. A run-time C, or more rows,
// stays on oneDNN.
TEST(DnnlMatMul, AOneRowProductRunsOnGemv) {
  uint32_t seed = 700;
  for (auto [k, n] : {std::pair<int64_t, int64_t>{1, 1}, {7, 5}, {17, 33}, {100, 1000}}) {
    for (int trans_b : {0, 1}) {
      Case c{"", "Gemm", {{"transB", int_attr(trans_b)}}, {}};
      c.inputs.push_back(random_float_tensor({1, k}, seed++));
      c.inputs.push_back(random_float_tensor(trans_b ? Shape{n, k} : Shape{k, n}, seed++));
      c.inputs.push_back(random_float_tensor({n}, seed++));
      const std::string label = "Gemm K " + std::to_string(k) + " N " + std::to_string(n) +
                                " transB " + std::to_string(trans_b);
      expect_matches_reference(c, label);
      EXPECT_EQ(run(fast_registry(), c, true).implementation, "gemv") << label;
    }
  }
  Case transposed_a{"", "Gemm", {{"transA", int_attr(1)}}, {}};
  transposed_a.inputs = {random_float_tensor({9, 1}, 720), random_float_tensor({9, 6}, 721)};
  expect_matches_reference(transposed_a, "Gemm transA");
  for (const Shape& a : {Shape{24}, Shape{1, 24}, Shape{1, 1, 24}}) {
    Case c{"", "MatMul", {}, {random_float_tensor(a, 730), random_float_tensor({24, 19}, 731)}};
    expect_matches_reference(c, "MatMul A " + shape_to_string(a));
    EXPECT_EQ(run(fast_registry(), c, true).implementation, "gemv") << shape_to_string(a);
  }
  Case fused{"ai.inferlab",
             "FusedGemm",
             {{"activation", string_attr("Relu")}, {"transB", int_attr(1)}},
             {}};
  fused.inputs = {random_float_tensor({1, 40}, 740), random_float_tensor({30, 40}, 741),
                  random_float_tensor({30}, 742)};
  expect_matches_reference(fused, "FusedGemm Relu");
  Case affine = fused;
  affine.attributes["activation_affine"] = floats_attr({1.5f, 0.25f});
  expect_matches_reference(affine, "FusedGemm Relu then affine");
  Case run_time_c = fused;
  run_time_c.constants = {1};
  expect_matches_reference(run_time_c, "run-time C");
  EXPECT_EQ(run(fast_registry(), run_time_c, true).implementation, "");
  Case two_rows{
      "", "MatMul", {}, {random_float_tensor({2, 24}, 750), random_float_tensor({24, 19}, 751)}};
  EXPECT_EQ(run(fast_registry(), two_rows, true).implementation, "");
}

// A few rows of A with a constant B of a megabyte or more run on InferLab's
// panel_gemm (prepare says so through the state's implementation): MatMul
// with 3-D A, Gemm with transB and a constant C, the fused forms with an
// activation and its affine, and Attention's projection. Columns that are
// not whole blocks, more than 256 rows, or a run-time C stay on oneDNN.
// (A team of two, whose threads each stream 256 KiB or more of column
// counts of 8 to 24 AVX-512 blocks, at least the depth.)
TEST(DnnlMatMul, FewRowsWithLargeConstantWeightsRunOnPanelGemm) {
  const cpu::KernelTable& table = cpu::kernel_table(dnnl_testing::fast_isa());
  const std::string panel = "panel_gemm_f32:" + std::string(cpu::isa_name(table.isa));
  const cpu::TeamOf team(2);  // the choice depends on the team's size

  const auto expect_panel = [&](const Case& c, const std::string& label, bool on_panel) {
    expect_matches_reference(c, label);
    EXPECT_EQ(run(fast_registry(), c, true).implementation, on_panel ? panel : "") << label;
  };
  expect_panel({"",
                "MatMul",
                {},
                {random_float_tensor({1, 10, 512}, 1), random_float_tensor({512, 768}, 2)}},
               "MatMul 10 x 512 x 768", true);
  Case gemm{"", "Gemm", {{"transB", int_attr(1)}}, {}};
  gemm.inputs = {random_float_tensor({7, 384}, 3), random_float_tensor({1024, 384}, 4),
                 random_float_tensor({1024}, 5)};
  expect_panel(gemm, "Gemm transB with C", true);
  Case run_time_c = gemm;
  run_time_c.constants = {1};
  expect_panel(run_time_c, "Gemm with a run-time C", false);
  for (const std::string activation : {"Gelu", "Relu"}) {
    Case fused{"ai.inferlab", "FusedMatMul", {{"activation", string_attr(activation)}}, {}};
    fused.inputs = {random_float_tensor({1, 13, 512}, 6), random_float_tensor({512, 512}, 7),
                    random_float_tensor({512}, 8)};
    expect_panel(fused, "FusedMatMul " + activation, true);
    fused.attributes["activation_affine"] = floats_attr({1.5f, 0.25f});
    expect_panel(fused, "FusedMatMul " + activation + " then affine", true);
  }
  expect_panel(
      {"", "MatMul", {}, {random_float_tensor({5, 768}, 9), random_float_tensor({768, 1000}, 10)}},
      "columns not whole blocks", table.panel_gemm_block <= 8);
  expect_panel({"",
                "MatMul",
                {},
                {random_float_tensor({300, 512}, 11), random_float_tensor({512, 512}, 12)}},
               "300 rows", false);
  Case attention{"com.microsoft", "Attention", {{"num_heads", int_attr(4)}}, {}};
  // Weights of a trained model's size: uniform in [-1, 1] they make
  // saturated scores where float32 rounding shows.
  attention.inputs = {random_float_tensor({1, 9, 512}, 13),
                      random_float_tensor({512, 1536}, 14, -0.1f, 0.1f),
                      random_float_tensor({1536}, 15)};
  expect_matches_reference(attention, "Attention 9 x 512");
  EXPECT_EQ(run(fast_registry(), attention, true).implementation,
            "panel_gemm_f32 projection, oneDNN heads");
  expect_copy_stands_for_the_weights(gemm, "Gemm on panel_gemm");
  expect_copy_stands_for_the_weights(attention, "Attention on panel_gemm");
}

TEST(DnnlMatMul, GemmMatchesWithTransposesAndEveryCShape) {
  const int64_t m = 5;
  const int64_t k = 12;
  const int64_t n = 7;
  const std::vector<Shape> c_shapes = {{}, {n}, {1, n}, {m, n}, {m, 1}};
  uint32_t seed = 800;
  for (int trans_a : {0, 1}) {
    for (int trans_b : {0, 1}) {
      for (const Shape& c_shape : c_shapes) {
        Case c{"", "Gemm", {{"transA", int_attr(trans_a)}, {"transB", int_attr(trans_b)}}, {}};
        c.inputs.push_back(random_float_tensor(trans_a ? Shape{k, m} : Shape{m, k}, seed++));
        c.inputs.push_back(random_float_tensor(trans_b ? Shape{n, k} : Shape{k, n}, seed++));
        c.inputs.push_back(random_float_tensor(c_shape, seed++));
        const std::string label = "transA " + std::to_string(trans_a) + " transB " +
                                  std::to_string(trans_b) + " C " + shape_to_string(c_shape);
        // oneDNN broadcasts C per tensor, per row of N, or not at all; a
        // column [M, 1] may be declined (the reference then runs): compare
        // only the values.
        const Outcome fast = run(fast_registry(), c, true);
        const Outcome reference = run(OpRegistry::reference(), c, false);
        if (c_shape != Shape{m, 1}) {
          EXPECT_TRUE(fast.prepared) << label;
        }
        EXPECT_LE(inferlab::testing::relative_error(fast.output, reference.output), 1e-5) << label;
      }
    }
  }
}

TEST(DnnlMatMul, FusedFormsMatchWithBiasAndActivation) {
  uint32_t seed = 900;
  for (const std::string activation : {"", "Relu", "Gelu", "GeluTanh", "Tanh"}) {
    Case matmul{"ai.inferlab", "FusedMatMul", {{"activation", string_attr(activation)}}, {}};
    matmul.inputs = {random_float_tensor({2, 3, 24}, seed), random_float_tensor({24, 40}, seed + 1),
                     random_float_tensor({40}, seed + 2)};
    expect_matches_reference(matmul, "FusedMatMul " + activation);
    Case gemm{"ai.inferlab",
              "FusedGemm",
              {{"activation", string_attr(activation)}, {"transB", int_attr(1)}},
              {}};
    gemm.inputs = {random_float_tensor({4, 24}, seed + 3), random_float_tensor({10, 24}, seed + 4),
                   random_float_tensor({10}, seed + 5)};
    expect_matches_reference(gemm, "FusedGemm " + activation);
    seed += 6;
  }
}

TEST(DnnlMatMul, GemmWithAlphaOrBetaStaysOnTheReference) {
  Case c{"",
         "Gemm",
         {{"alpha", inferlab::testing::float_attr(0.5f)}},
         {random_float_tensor({3, 4}, 1), random_float_tensor({4, 5}, 2),
          random_float_tensor({5}, 3)}};
  EXPECT_FALSE(run(fast_registry(), c, true).prepared);
  c.attributes = {{"beta", inferlab::testing::float_attr(2.0f)}};
  EXPECT_FALSE(run(fast_registry(), c, true).prepared);
}

TEST(DnnlAttention, ProjectionOnOneDnnMatchesTheReferenceWithAndWithoutBiases) {
  uint32_t seed = 1000;
  for (bool bias : {true, false}) {
    for (bool attention_bias : {false, true}) {
      Case c{"com.microsoft", "Attention", {{"num_heads", int_attr(4)}}, {}};
      c.inputs = {random_float_tensor({2, 7, 24}, seed), random_float_tensor({24, 48}, seed + 1)};
      c.inputs.push_back(bias ? std::optional<Tensor>(random_float_tensor({48}, seed + 2))
                              : std::nullopt);
      if (attention_bias) {
        c.inputs.emplace_back();
        c.inputs.emplace_back();
        c.inputs.push_back(random_float_tensor({2, 1, 7, 7}, seed + 3));
      }
      const std::string label =
          std::string(bias ? "bias" : "no bias") + (attention_bias ? " attention_bias" : "");
      expect_matches_reference(c, label);
      EXPECT_EQ(run(fast_registry(), c, true).implementation, "oneDNN projection and heads")
          << label;
      seed += 4;
    }
  }
}

TEST(DnnlPackedWeights, MatMulGemmAndAttentionCopiesStandForTheWeights) {
  expect_copy_stands_for_the_weights(
      {"", "MatMul", {}, {random_float_tensor({7, 33}, 1), random_float_tensor({33, 17}, 2)}},
      "MatMul");
  expect_copy_stands_for_the_weights(
      {"", "MatMul", {}, {random_float_tensor({2, 1, 6, 8}, 3), random_float_tensor({3, 8, 5}, 4)}},
      "MatMul batch broadcast");
  expect_copy_stands_for_the_weights(
      {"",
       "Gemm",
       {{"transB", int_attr(1)}},
       {random_float_tensor({5, 12}, 5), random_float_tensor({7, 12}, 6),
        random_float_tensor({7}, 7)}},
      "Gemm transB");
  expect_copy_stands_for_the_weights(
      {"com.microsoft",
       "Attention",
       {{"num_heads", int_attr(4)}},
       {random_float_tensor({2, 7, 24}, 8), random_float_tensor({24, 48}, 9),
        random_float_tensor({48}, 10)}},
      "Attention");
}

}  // namespace
}  // namespace inferlab::kernels
