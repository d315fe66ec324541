// The oneDNN-backed kernels (Conv, FusedConv, MaxPool, AveragePool,
// Transpose; the products are in dnnl_matmul_test.cc) against
// their reference kernels, through the same calls a run plan makes: prepare
// with the plan's shapes and constant weights, then compute with the state
// (twice, so a second call with the same state and scratch is checked too).
// Prepacked weights: the node cache's copy stands for the weights once the
// runtime releases them (unpacked bit for bit, packed into new layouts).
// Awkward shapes: groups, depthwise, strides, pads, dilations, batch 2, odd
// channel counts, 1-D and 3-D, no bias, every fused activation (then an
// activation_affine, with the residual), residual Z.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/registry.h"
#include "kernels/dnnl/dnnl_test_harness.h"
#include "kernels/tensor_ops_harness.h"
#include "test_util.h"

namespace inferlab::kernels {
namespace {

using dnnl_testing::Case;
using dnnl_testing::expect_copy_stands_for_the_weights;
using dnnl_testing::expect_matches_reference;
using dnnl_testing::fast_registry;
using dnnl_testing::is_winograd;
using dnnl_testing::Outcome;
using dnnl_testing::run;
using inferlab::testing::floats_attr;
using inferlab::testing::int_attr;
using inferlab::testing::ints_attr;
using inferlab::testing::random_float_tensor;
using inferlab::testing::string_attr;

struct ConvShape {
  std::string label;
  Shape x;
  Shape w;
  model::AttributeMap attributes;
  bool bias = true;
};

std::vector<ConvShape> conv_shapes() {
  return {
      {"3x3 pad 1", {1, 5, 9, 11}, {7, 5, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}},
      {"1x1", {1, 16, 8, 8}, {33, 16, 1, 1}, {}},
      {"stride 2 asymmetric pads",
       {2, 3, 17, 13},
       {8, 3, 7, 7},
       {{"strides", ints_attr({2, 2})}, {"pads", ints_attr({3, 2, 1, 3})}}},
      {"dilation 2",
       {1, 4, 12, 12},
       {6, 4, 3, 3},
       {{"dilations", ints_attr({2, 2})}, {"pads", ints_attr({2, 2, 2, 2})}}},
      {"groups 3",
       {1, 6, 10, 10},
       {9, 2, 3, 3},
       {{"group", int_attr(3)}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"depthwise stride 2",
       {1, 32, 15, 15},
       {32, 1, 3, 3},
       {{"group", int_attr(32)},
        {"strides", ints_attr({2, 2})},
        {"pads", ints_attr({1, 1, 1, 1})}}},
      {"auto_pad SAME_UPPER",
       {1, 3, 10, 9},
       {4, 3, 4, 4},
       {{"auto_pad", string_attr("SAME_UPPER")}, {"strides", ints_attr({2, 2})}}},
      {"no bias", {1, 2, 5, 5}, {3, 2, 3, 3}, {}, false},
      {"3x3 Winograd odd sizes",
       {1, 32, 13, 11},
       {48, 32, 3, 3},
       {{"pads", ints_attr({1, 1, 1, 1})}}},
      {"3x3 Winograd batch 4", {4, 16, 9, 10}, {16, 16, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}},
      {"1-D", {2, 4, 19}, {5, 4, 3}, {{"pads", ints_attr({1, 1})}}},
      {"3-D", {1, 2, 5, 6, 7}, {3, 2, 3, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1, 1, 1})}}},
  };
}

Case conv_case(const ConvShape& shape, uint32_t seed) {
  Case c{"", "Conv", shape.attributes, {}};
  c.inputs.push_back(random_float_tensor(shape.x, seed));
  c.inputs.push_back(random_float_tensor(shape.w, seed + 1));
  if (shape.bias) c.inputs.push_back(random_float_tensor({shape.w[0]}, seed + 2));
  return c;
}

TEST(DnnlConv, MatchesTheReferenceConvOnAwkwardShapes) {
  uint32_t seed = 10;
  for (const ConvShape& shape : conv_shapes()) {
    expect_matches_reference(conv_case(shape, seed), shape.label);
    seed += 3;
  }
}

// Winograd where it measured faster: 3x3 stride 1, channels in whole blocks
// of 16, weights up to 1 MiB, or 4 MiB at a batch of 4 or more; oneDNN has
// it for AVX-512 only.
TEST(DnnlConv, SmallThreeByThreeConvolutionsRunAsWinograd) {
  if (dnnl_backend::dnnl_isa_name().rfind("avx512", 0) != 0) {
    GTEST_SKIP() << "oneDNN's Winograd convolution needs AVX-512; this process runs "
                 << dnnl_backend::dnnl_isa_name();
  }
  const std::vector<std::pair<ConvShape, bool>> cases = {
      {{"small weights", {1, 32, 14, 14}, {32, 32, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}},
       true},
      {{"batch 4", {4, 16, 8, 8}, {16, 16, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}}, true},
      {{"weights over 1 MiB at batch 1",
        {1, 256, 7, 7},
        {256, 256, 3, 3},
        {{"pads", ints_attr({1, 1, 1, 1})}}},
       false},
      {{"weights over 4 MiB at batch 4",
        {4, 512, 4, 4},
        {512, 512, 3, 3},
        {{"pads", ints_attr({1, 1, 1, 1})}}},
       false},
      {{"24 output channels: a partial block of 16",
        {1, 96, 20, 20},
        {24, 96, 3, 3},
        {{"pads", ints_attr({1, 1, 1, 1})}}},
       false},
      {{"stride 2",
        {1, 32, 14, 14},
        {32, 32, 3, 3},
        {{"strides", ints_attr({2, 2})}, {"pads", ints_attr({1, 1, 1, 1})}}},
       false},
  };
  uint32_t seed = 900;
  for (const auto& [shape, winograd] : cases) {
    const Outcome outcome = run(fast_registry(), conv_case(shape, seed++), true);
    ASSERT_TRUE(outcome.prepared) << shape.label;
    EXPECT_EQ(is_winograd(outcome), winograd) << shape.label << ": " << outcome.implementation;
  }
}

TEST(DnnlConv, FusedConvMatchesWithEveryActivationAndTheResidual) {
  const std::vector<std::pair<std::string, std::vector<float>>> activations = {
      {"Relu", {}},
      {"LeakyRelu", {0.1f}},
      {"Clip", {-0.5f, 0.7f}},
      {"Sigmoid", {}},
      {"HardSigmoid", {0.3f, 0.4f}},
      {"HardSwish", {}},
      {"Tanh", {}},
      {"Gelu", {}},
      {"GeluTanh", {}},
      {"SiLU", {}}};
  uint32_t seed = 100;
  for (const ConvShape& shape : conv_shapes()) {
    for (const auto& [name, params] : activations) {
      for (bool residual : {false, true}) {
        Case c = conv_case(shape, seed++);
        c.domain = "ai.inferlab";
        c.op = "FusedConv";
        c.attributes["activation"] = string_attr(name);
        if (!params.empty()) c.attributes["activation_params"] = floats_attr(params);
        // With the residual, also the activation_affine after the activation.
        if (residual) c.attributes["activation_affine"] = floats_attr({0.8f, -0.3f});
        if (residual) {
          const Outcome plain = run(OpRegistry::reference(), c, false);
          while (c.inputs.size() < 3) c.inputs.emplace_back();
          // Z is an activation, not a constant: unknown at prepare.
          c.inputs.push_back(random_float_tensor(plain.output.shape(), seed++));
        }
        expect_matches_reference(c, shape.label + " " + name + (residual ? " +Z" : ""));
      }
    }
  }
}

// oneDNN 2.6 raised SIGFPE creating a matmul with K = 0; every empty
// tensor stays on the reference kernel, whose result is checked here.
TEST(DnnlKernels, EmptyTensorsStayOnTheReference) {
  const std::vector<std::pair<std::string, Case>> cases = {
      {"MatMul, K = 0",
       {"", "MatMul", {}, {random_float_tensor({2, 3, 0}, 40), random_float_tensor({0, 5}, 41)}}},
      {"MatMul, N = 0",
       {"", "MatMul", {}, {random_float_tensor({2, 3, 4}, 42), random_float_tensor({4, 0}, 43)}}},
      {"MatMul, M = 0",
       {"", "MatMul", {}, {random_float_tensor({0, 4}, 44), random_float_tensor({4, 5}, 45)}}},
      {"Conv, batch 0",
       {"",
        "Conv",
        {{"pads", ints_attr({1, 1, 1, 1})}},
        {random_float_tensor({0, 16, 5, 5}, 46), random_float_tensor({16, 16, 3, 3}, 47)}}},
  };
  for (const auto& [label, c] : cases) {
    const Outcome fast = run(fast_registry(), c, true);
    const Outcome reference = run(OpRegistry::reference(), c, false);
    EXPECT_FALSE(fast.prepared) << label;
    EXPECT_EQ(fast.output.shape(), reference.output.shape()) << label;
    EXPECT_TRUE(fast.output.equals(reference.output)) << label;
  }
}

TEST(DnnlPool, MaxAndAveragePoolMatchTheReference) {
  struct PoolCase {
    std::string label;
    std::string op;
    Shape x;
    model::AttributeMap attributes;
  };
  const std::vector<PoolCase> cases = {
      {"max 3x3 s2 p1",
       "MaxPool",
       {1, 64, 112, 112},
       {{"kernel_shape", ints_attr({3, 3})},
        {"strides", ints_attr({2, 2})},
        {"pads", ints_attr({1, 1, 1, 1})}}},
      {"max ceil_mode",
       "MaxPool",
       {2, 3, 10, 11},
       {{"kernel_shape", ints_attr({3, 3})},
        {"strides", ints_attr({2, 2})},
        {"ceil_mode", int_attr(1)}}},
      {"max dilated",
       "MaxPool",
       {1, 5, 13, 13},
       {{"kernel_shape", ints_attr({3, 3})}, {"dilations", ints_attr({2, 2})}}},
      {"max 1-D", "MaxPool", {1, 7, 21}, {{"kernel_shape", ints_attr({4})}}},
      {"average exclude pad",
       "AveragePool",
       {1, 9, 14, 14},
       {{"kernel_shape", ints_attr({3, 3})}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"average include pad",
       "AveragePool",
       {1, 9, 14, 14},
       {{"kernel_shape", ints_attr({3, 3})},
        {"pads", ints_attr({1, 0, 1, 2})},
        {"count_include_pad", int_attr(1)}}},
      {"average ceil_mode",
       "AveragePool",
       {1, 4, 9, 9},
       {{"kernel_shape", ints_attr({2, 2})},
        {"strides", ints_attr({2, 2})},
        {"ceil_mode", int_attr(1)}}},
  };
  uint32_t seed = 500;
  for (const PoolCase& p : cases) {
    Case c{"", p.op, p.attributes, {random_float_tensor(p.x, seed++)}};
    expect_matches_reference(c, p.label);
  }
}

TEST(DnnlPool, AveragePoolCountingPaddingWithCeilModeStaysOnTheReference) {
  Case c{"",
         "AveragePool",
         {{"kernel_shape", ints_attr({2, 2})},
          {"strides", ints_attr({2, 2})},
          {"ceil_mode", int_attr(1)},
          {"count_include_pad", int_attr(1)}},
         {random_float_tensor({1, 2, 5, 5}, 7)}};
  const Outcome fast = run(fast_registry(), c, true);
  EXPECT_FALSE(fast.prepared);
  EXPECT_LE(
      inferlab::testing::relative_error(fast.output, run(OpRegistry::reference(), c, false).output),
      0.0);
}

TEST(DnnlPackedWeights, ConvolutionCopiesStandForTheWeights) {
  uint32_t seed = 1100;
  for (const ConvShape& shape : conv_shapes()) {
    expect_copy_stands_for_the_weights(conv_case(shape, seed), "Conv " + shape.label);
    seed += 3;
  }
}

// The narrow kernel's packed weights (narrow_conv_f32 on AVX-512) stand for
// the weights like oneDNN's do: unpacked bit for bit, the same output after
// the runtime released the original.
TEST(DnnlPackedWeights, NarrowConvolutionCopiesStandForTheWeights) {
  Case c{"ai.inferlab",
         "FusedConv",
         {{"channels_last", int_attr(1)}, {"pads", ints_attr({1, 1, 1, 1})}},
         {random_float_tensor({1, 9, 11, 32}, 1200), random_float_tensor({24, 32, 3, 3}, 1201),
          random_float_tensor({24}, 1202)}};
  expect_copy_stands_for_the_weights(c, "FusedConv 32 -> 24 channels-last");
  if (dnnl_testing::fast_isa() == cpu::Isa::kAvx512) {
    EXPECT_EQ(run(fast_registry(), c, true).implementation, "narrow_conv_f32:avx512");
  }
}

TEST(DnnlConv, WithoutAPlanTheReferenceKernelRuns) {
  const Case c = conv_case(conv_shapes()[0], 3);
  const Outcome unplanned = run(fast_registry(), c, false);
  EXPECT_FALSE(unplanned.prepared);
  EXPECT_EQ(inferlab::testing::relative_error(unplanned.output,
                                              run(OpRegistry::reference(), c, false).output),
            0.0);
}

TEST(DnnlConv, NonConstantWeightsStayOnTheReference) {
  Case c = conv_case(conv_shapes()[0], 3);
  c.constants = {2};  // W is computed at run time
  EXPECT_FALSE(run(fast_registry(), c, true).prepared);
}

TEST(DnnlTranspose, EveryPermutationOfRankTwoToFiveMatchesTheReferenceExactly) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{5, 7}, {1, 0}},       {{1, 3, 9, 11}, {0, 2, 3, 1}},      {{2, 13, 4, 5}, {0, 3, 1, 2}},
      {{3, 4, 5}, {2, 0, 1}}, {{2, 3, 1, 4, 5}, {4, 2, 0, 3, 1}},
  };
  uint32_t seed = 1200;
  for (const auto& [shape, perm] : cases) {
    Case c{"", "Transpose", {{"perm", ints_attr(perm.to_vector())}}, {}};
    c.inputs = {random_float_tensor(shape, seed++)};
    c.constants = {};
    const Outcome fast = run(fast_registry(), c, true);
    EXPECT_TRUE(fast.prepared) << shape_to_string(shape);
    EXPECT_TRUE(fast.output.equals(run(OpRegistry::reference(), c, false).output))
        << shape_to_string(shape) << " perm " << shape_to_string(perm);
  }
  // Without perm: the dims reversed.
  Case reversed{"", "Transpose", {}, {random_float_tensor({2, 3, 4}, 9)}};
  reversed.constants = {};
  EXPECT_TRUE(run(fast_registry(), reversed, true)
                  .output.equals(run(OpRegistry::reference(), reversed, false).output));
}

}  // namespace
}  // namespace inferlab::kernels
