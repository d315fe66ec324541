// ConvTranspose on oneDNN against the reference kernel, through the calls a
// run plan makes (prepare, then compute twice with the state): groups and
// depthwise, strides with output_padding, dilations, asymmetric pads,
// auto_pad, the output_shape attribute, no bias or a bias known only at run
// time, 1-D and 3-D, batch 2 — and the cases it leaves to the reference.
#include <gtest/gtest.h>

#include "inferlab/kernels/registry.h"
#include "kernels/dnnl/dnnl_test_harness.h"
#include "kernels/tensor_ops_harness.h"
#include "test_util.h"

namespace inferlab::kernels {
namespace {

using dnnl_testing::Case;
using dnnl_testing::expect_matches_reference;
using dnnl_testing::fast_registry;
using dnnl_testing::Outcome;
using dnnl_testing::run;
using inferlab::testing::int_attr;
using inferlab::testing::ints_attr;
using inferlab::testing::random_float_tensor;
using inferlab::testing::string_attr;

struct DeconvShape {
  std::string label;
  Shape x;
  Shape w;  // [C_in, C_out / group, k...]
  model::AttributeMap attributes;
  bool bias = true;
};

std::vector<DeconvShape> deconv_shapes() {
  return {
      {"3x3 pad 1", {1, 5, 7, 9}, {5, 4, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}},
      {"1x1", {1, 16, 5, 5}, {16, 7, 1, 1}, {}},
      {"stride 2 output_padding 1",
       {2, 3, 6, 5},
       {3, 6, 3, 3},
       {{"strides", ints_attr({2, 2})},
        {"pads", ints_attr({1, 1, 1, 1})},
        {"output_padding", ints_attr({1, 1})}}},
      {"strides 2x3 asymmetric pads, output_padding on one dim",
       {1, 4, 5, 7},
       {4, 3, 4, 3},
       {{"strides", ints_attr({2, 3})},
        {"pads", ints_attr({0, 2, 1, 1})},
        {"output_padding", ints_attr({1, 0})}}},
      {"dilation 2 asymmetric pads",
       {1, 3, 6, 6},
       {3, 5, 3, 3},
       {{"dilations", ints_attr({2, 2})}, {"pads", ints_attr({1, 2, 2, 1})}}},
      {"dilation and stride 2",
       {1, 2, 4, 5},
       {2, 3, 3, 2},
       {{"dilations", ints_attr({2, 3})}, {"strides", ints_attr({2, 2})}}},
      {"groups 3 stride 2",
       {1, 6, 5, 5},
       {6, 3, 3, 3},
       {{"group", int_attr(3)}, {"strides", ints_attr({2, 2})}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"depthwise 4x4 stride 2 (upsampling)",
       {1, 8, 7, 7},
       {8, 1, 4, 4},
       {{"group", int_attr(8)}, {"strides", ints_attr({2, 2})}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"2x2 stride 2 no bias", {1, 2, 4, 4}, {2, 3, 2, 2}, {{"strides", ints_attr({2, 2})}}, false},
      // Stride equal to the kernel: InferLab's block-upsampling kernel.
      {"2x2 stride 2, 24 channels, width 37 (block upsampling)",
       {1, 24, 3, 37},
       {24, 5, 2, 2},
       {{"strides", ints_attr({2, 2})}}},
      {"2x2 stride 2 no bias, width 70 (block upsampling)",
       {1, 3, 2, 70},
       {3, 2, 2, 2},
       {{"strides", ints_attr({2, 2})}},
       false},
      {"2x2 stride 2 batch 2 (block upsampling)",
       {2, 5, 6, 7},
       {5, 3, 2, 2},
       {{"strides", ints_attr({2, 2})}}},
      {"3x2 strides 3x2, 1 output channel (block upsampling)",
       {1, 24, 5, 4},
       {24, 1, 3, 2},
       {{"strides", ints_attr({3, 2})}}},
      {"auto_pad SAME_UPPER",
       {1, 3, 5, 6},
       {3, 4, 3, 3},
       {{"auto_pad", string_attr("SAME_UPPER")}, {"strides", ints_attr({2, 2})}}},
      {"auto_pad SAME_LOWER",
       {1, 3, 5, 6},
       {3, 4, 3, 4},  // an odd total pad on H: SAME_LOWER puts the extra one first
       {{"auto_pad", string_attr("SAME_LOWER")}, {"strides", ints_attr({2, 2})}}},
      {"auto_pad VALID",
       {1, 2, 3, 4},
       {2, 2, 3, 3},
       {{"auto_pad", string_attr("VALID")}, {"strides", ints_attr({2, 1})}}},
      {"output_shape (spatial)",
       {1, 3, 5, 5},
       {3, 2, 3, 3},
       {{"strides", ints_attr({2, 2})}, {"output_shape", ints_attr({10, 9})}}},
      {"output_shape (N, C and spatial)",
       {1, 3, 5, 5},
       {3, 2, 3, 3},
       {{"strides", ints_attr({2, 2})}, {"output_shape", ints_attr({1, 2, 9, 10})}}},
      {"1-D stride 2 output_padding",
       {2, 4, 11},
       {4, 5, 3},
       {{"strides", ints_attr({2})},
        {"pads", ints_attr({1, 0})},
        {"output_padding", ints_attr({1})}}},
      {"1-D groups 2 no bias", {1, 4, 9}, {4, 3, 5}, {{"group", int_attr(2)}}, false},
      {"3-D strides and pads",
       {1, 2, 3, 4, 5},
       {2, 3, 3, 3, 3},
       {{"strides", ints_attr({1, 2, 2})}, {"pads", ints_attr({1, 0, 1, 0, 1, 1})}}},
  };
}

Case deconv_case(const DeconvShape& shape, uint32_t seed) {
  Case c{"", "ConvTranspose", shape.attributes, {}};
  c.inputs.push_back(random_float_tensor(shape.x, seed));
  c.inputs.push_back(random_float_tensor(shape.w, seed + 1));
  const int64_t group = shape.attributes.count("group") ? shape.attributes.at("group").i : 1;
  if (shape.bias) c.inputs.push_back(random_float_tensor({shape.w[1] * group}, seed + 2));
  return c;
}

TEST(DnnlConvTranspose, MatchesTheReferenceOnAwkwardShapes) {
  uint32_t seed = 10;
  for (const DeconvShape& shape : deconv_shapes()) {
    expect_matches_reference(deconv_case(shape, seed), shape.label);
    seed += 3;
  }
}

TEST(DnnlConvTranspose, TakesABiasKnownOnlyAtRunTime) {
  Case c = deconv_case(deconv_shapes()[2], 5);
  c.constants = {1};
  expect_matches_reference(c, "run-time bias");
}

// What oneDNN cannot express, and what it is not asked to do, runs on the
// reference kernel, with its results.
TEST(DnnlConvTranspose, LeavesUnmappableCasesToTheReference) {
  std::vector<std::pair<std::string, Case>> cases;
  // output_padding up to the dilation (ONNX allows it) is beyond one stride.
  cases.emplace_back(
      "output_padding >= stride",
      deconv_case({"",
                   {1, 2, 5, 5},
                   {2, 3, 3, 3},
                   {{"dilations", ints_attr({2, 2})}, {"output_padding", ints_attr({1, 1})}}},
                  20));
  // A requested output larger than the input reaches: the rest is bias alone.
  cases.emplace_back(
      "output_shape beyond the input's reach",
      deconv_case({"", {1, 2, 3, 3}, {2, 2, 3, 3}, {{"output_shape", ints_attr({7, 6})}}}, 23));
  Case computed_weights = deconv_case(deconv_shapes()[0], 26);
  computed_weights.constants = {2};
  cases.emplace_back("weights computed at run time", computed_weights);
  for (const auto& [label, c] : cases) {
    const Outcome fast = run(fast_registry(), c, true);
    EXPECT_FALSE(fast.prepared) << label;
    EXPECT_EQ(inferlab::testing::relative_error(fast.output,
                                                run(OpRegistry::reference(), c, false).output),
              0.0)
        << label;
  }
}

TEST(DnnlConvTranspose, WithoutAPlanTheReferenceKernelRuns) {
  const Case c = deconv_case(deconv_shapes()[2], 3);
  const Outcome unplanned = run(fast_registry(), c, false);
  EXPECT_FALSE(unplanned.prepared);
  EXPECT_EQ(inferlab::testing::relative_error(unplanned.output,
                                              run(OpRegistry::reference(), c, false).output),
            0.0);
}

}  // namespace
}  // namespace inferlab::kernels
