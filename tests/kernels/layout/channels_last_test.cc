// Channels-last kernels (kernels/layout/channels_last.h and the oneDNN
// forms in kernels/dnnl/) against the channels-first reference: every case
// is built channels-first, run there by the reference kernels, then run as
// the layout pass would write it (inputs transposed to NHWC,
// channels_last = 1 or the Nhwc* operator) both on the reference path
// (no plan) and on oneDNN (planned), and transposed back for comparison.
#include <gtest/gtest.h>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "kernels/cpu/cpu_test_util.h"
#include "kernels/dnnl/dnnl_test_harness.h"
#include "kernels/tensor_ops_harness.h"

namespace inferlab::kernels {
namespace {

using dnnl_testing::Case;
using dnnl_testing::fast_registry;
using dnnl_testing::Outcome;
using dnnl_testing::run;
using inferlab::testing::floats_attr;
using inferlab::testing::int_attr;
using inferlab::testing::ints_attr;
using inferlab::testing::random_float_tensor;
using inferlab::testing::string_attr;

Tensor to_last(const Tensor& x) {
  Tensor y(x.dtype(), layout::to_channels_last(x.shape()));
  layout::transpose_channels(x.raw_data(), y.raw_data(), x.shape(), dtype_size(x.dtype()), false);
  return y;
}

Tensor to_first(const Tensor& x) {
  Tensor y(x.dtype(), layout::to_channels_first(x.shape()));
  layout::transpose_channels(x.raw_data(), y.raw_data(), x.shape(), dtype_size(x.dtype()), true);
  return y;
}

// `c` as the layout pass writes it: `layout_inputs` transposed, and either
// channels_last = 1 (FusedConv) or the Nhwc form of the operator.
Case channels_last_case(Case c, std::initializer_list<size_t> layout_inputs) {
  for (size_t i : layout_inputs) {
    if (i < c.inputs.size() && c.inputs[i]) c.inputs[i] = to_last(*c.inputs[i]);
  }
  if (c.op == "FusedConv") {
    c.attributes["channels_last"] = int_attr(1);
  } else {
    c.op = "Nhwc" + c.op;
    c.domain = "ai.inferlab";
  }
  return c;
}

// Returns the planned run (its implementation).
Outcome expect_channels_last_matches(const Case& first, std::initializer_list<size_t> layout_inputs,
                                     const std::string& label) {
  const Tensor expected = run(OpRegistry::reference(), first, false).output;
  const Case last = channels_last_case(first, layout_inputs);
  const Outcome reference = run(OpRegistry::reference(), last, false);
  EXPECT_FALSE(reference.prepared);
  EXPECT_EQ(to_first(reference.output).shape(), expected.shape()) << label;
  EXPECT_LE(inferlab::testing::relative_error(to_first(reference.output), expected), 1e-6)
      << label << " (reference path)";
  const Outcome fast = run(fast_registry(), last, true);
  EXPECT_TRUE(fast.prepared) << label << ": oneDNN did not take it";
  EXPECT_LE(inferlab::testing::relative_error(to_first(fast.output), expected), 1e-5)
      << label << " (oneDNN)";
  return fast;
}

TEST(ChannelsLast, ShapesAndCopiesRoundTrip) {
  EXPECT_EQ(layout::to_channels_last({2, 3, 5, 7}), (Shape{2, 5, 7, 3}));
  EXPECT_EQ(layout::to_channels_first({2, 5, 7, 3}), (Shape{2, 3, 5, 7}));
  EXPECT_EQ(layout::to_channels_last({2, 3, 5}), (Shape{2, 5, 3}));
  EXPECT_EQ(layout::to_channels_last({4, 3}), (Shape{4, 3}));
  const Tensor x = random_float_tensor({2, 3, 5, 7}, 3);
  const Tensor last = to_last(x);
  // Element (n, c, h, w) sits at ((n * 5 + h) * 7 + w) * 3 + c.
  EXPECT_EQ(last.data<float>()[((1 * 5 + 4) * 7 + 6) * 3 + 2],
            x.data<float>()[((1 * 3 + 2) * 5 + 4) * 7 + 6]);
  EXPECT_TRUE(to_first(last).equals(x));
}

TEST(ChannelsLast, FusedConvMatchesChannelsFirstWithActivationAndResidual) {
  struct ConvCase {
    std::string label;
    Shape x, w;
    model::AttributeMap attributes;
  };
  const std::vector<ConvCase> cases = {
      {"3x3 pad 1", {1, 5, 9, 11}, {7, 5, 3, 3}, {{"pads", ints_attr({1, 1, 1, 1})}}},
      {"1x1 batch 2", {2, 16, 6, 5}, {33, 16, 1, 1}, {}},
      {"stride 2 asymmetric pads",
       {1, 3, 17, 13},
       {8, 3, 7, 7},
       {{"strides", ints_attr({2, 2})}, {"pads", ints_attr({3, 2, 1, 3})}}},
      {"depthwise",
       {1, 24, 15, 15},
       {24, 1, 3, 3},
       {{"group", int_attr(24)}, {"pads", ints_attr({1, 1, 1, 1})}}},
      {"groups 3", {1, 6, 10, 10}, {9, 2, 3, 3}, {{"group", int_attr(3)}}},
  };
  uint32_t seed = 40;
  for (const ConvCase& shape : cases) {
    for (const char* activation : {"", "Relu", "HardSwish"}) {
      for (bool residual : {false, true}) {
        Case c{"ai.inferlab", "FusedConv", shape.attributes, {}};
        c.attributes["activation"] = string_attr(activation);
        c.inputs = {random_float_tensor(shape.x, seed), random_float_tensor(shape.w, seed + 1),
                    random_float_tensor({shape.w[0]}, seed + 2)};
        if (residual) {
          const Shape y = run(OpRegistry::reference(), c, false).output.shape();
          c.inputs.push_back(random_float_tensor(y, seed + 3));
        }
        seed += 4;
        expect_channels_last_matches(c, {0, 3},
                                     shape.label + " " + activation + (residual ? " +Z" : ""));
      }
    }
  }
}

// A 3x3 stride-1 FusedConv whose output channels are fewer than two
// vectors of the ISA and not a multiple of one, in whole blocks of the
// kernel's outputs, runs on narrow_conv_f32 (24 and 8 on AVX-512, in
// blocks of 8; 12 on AVX2, in blocks of 4, where 24 is three whole
// vectors), with its bias, activation and activation_affine; with a
// residual, a stride or input channels it cannot step through, oneDNN runs
// it.
TEST(ChannelsLast, FewOutputChannelsRunOnTheNarrowKernel) {
  const cpu::KernelTable& table = cpu::kernel_table(dnnl_testing::fast_isa());
  const int64_t vector = table.narrow_conv_channels * table.narrow_conv_group;
  struct NarrowCase {
    std::string label;
    Shape x, w;
    model::AttributeMap attributes;
    bool bias = true;
    bool residual = false;
  };
  const auto pads = [](std::vector<int64_t> p) { return ints_attr(p); };
  const std::vector<NarrowCase> cases = {
      {"32 -> 24", {1, 32, 9, 11}, {24, 32, 3, 3}, {{"pads", pads({1, 1, 1, 1})}}},
      {"16 -> 8 batch 2 no bias",
       {2, 16, 5, 7},
       {8, 16, 3, 3},
       {{"pads", pads({1, 1, 1, 1})}},
       false},
      {"48 -> 12 asymmetric pads", {1, 48, 6, 13}, {12, 48, 3, 3}, {{"pads", pads({0, 1, 2, 0})}}},
      {"16 -> 24 no pads", {1, 16, 4, 6}, {24, 16, 3, 3}, {}},
      {"16 -> 12 batch 2", {2, 16, 6, 9}, {12, 16, 3, 3}, {{"pads", pads({1, 1, 1, 1})}}},
      {"16 -> 24 with the residual",
       {1, 16, 5, 5},
       {24, 16, 3, 3},
       {{"pads", pads({1, 1, 1, 1})}},
       true,
       true},
      {"16 -> 24 stride 2",
       {1, 16, 9, 9},
       {24, 16, 3, 3},
       {{"pads", pads({1, 1, 1, 1})}, {"strides", ints_attr({2, 2})}}},
      {"6 -> 12 (input channels not whole steps)",
       {1, 6, 5, 5},
       {12, 6, 3, 3},
       {{"pads", pads({1, 1, 1, 1})}}},
  };
  uint32_t seed = 500;
  for (const NarrowCase& shape : cases) {
    const int64_t outputs = shape.w[0];
    const bool narrow = !shape.residual && shape.attributes.count("strides") == 0 &&
                        shape.x[1] % table.narrow_conv_channels == 0 &&
                        outputs % table.narrow_conv_outputs == 0 && outputs % vector != 0 &&
                        outputs < 2 * vector;
    for (const char* activation : {"", "Relu", "HardSwish"}) {
      Case c{"ai.inferlab", "FusedConv", shape.attributes, {}};
      c.attributes["activation"] = string_attr(activation);
      c.attributes["activation_affine"] = floats_attr({0.5f, 0.25f});
      c.inputs = {random_float_tensor(shape.x, seed), random_float_tensor(shape.w, seed + 1)};
      if (shape.bias) c.inputs.push_back(random_float_tensor({outputs}, seed + 2));
      if (shape.residual) {
        const Shape y = run(OpRegistry::reference(), c, false).output.shape();
        while (c.inputs.size() < 3) c.inputs.emplace_back();
        c.inputs.push_back(random_float_tensor(y, seed + 3));
      }
      seed += 4;
      const std::string label = shape.label + " " + activation;
      const Outcome fast = expect_channels_last_matches(c, {0, 3}, label);
      EXPECT_EQ(fast.implementation.rfind("narrow_conv_f32", 0) == 0, narrow)
          << label << ": " << fast.implementation;
    }
  }
}

// Few output pixels and large weights run on InferLab's panel_gemm (im2col,
// none for a 1x1 stride-1 convolution): 1x1 and 3x3, stride 2 with pads,
// dilation, batch 2, the residual, every activation with its affine.
// 28x28 outputs, groups, or outputs that are not whole blocks stay on
// oneDNN. (A team of two, sharing 512 outputs, at least the depth: 8
// blocks on AVX-512, 32 on AVX2.)
TEST(ChannelsLast, FewPixelsWithLargeWeightsRunOnThePanelKernel) {
  const cpu::TeamOf team(2);  // the choice depends on the team's size
  struct PanelCase {
    std::string label;
    Shape x, w;
    model::AttributeMap attributes;
    bool residual = false;
    bool panel = true;
  };
  const auto pads = [](std::vector<int64_t> p) { return ints_attr(p); };
  const std::vector<PanelCase> cases = {
      {"1x1 256 -> 512 at 7x7", {1, 256, 7, 7}, {512, 256, 1, 1}, {}},
      {"1x1 with the residual", {1, 256, 5, 6}, {512, 256, 1, 1}, {}, true},
      {"3x3 padded batch 2", {2, 32, 5, 5}, {512, 32, 3, 3}, {{"pads", pads({1, 1, 1, 1})}}},
      {"3x3 stride 2 asymmetric pads",
       {1, 32, 9, 8},
       {512, 32, 3, 3},
       {{"pads", pads({1, 0, 1, 1})}, {"strides", ints_attr({2, 2})}}},
      {"1x1 stride 2", {1, 256, 13, 13}, {512, 256, 1, 1}, {{"strides", ints_attr({2, 2})}}},
      {"3x3 dilation 2",
       {1, 32, 8, 8},
       {512, 32, 3, 3},
       {{"pads", pads({2, 2, 2, 2})}, {"dilations", ints_attr({2, 2})}},
       true},
      {"28x28 stays on oneDNN", {1, 256, 28, 28}, {256, 256, 1, 1}, {}, false, false},
      {"outputs not whole blocks", {1, 512, 7, 7}, {256 + 8, 512, 1, 1}, {}, false, false},
      {"groups", {1, 512, 7, 7}, {256, 256, 1, 1}, {{"group", int_attr(2)}}, false, false},
  };
  uint32_t seed = 900;
  for (const PanelCase& shape : cases) {
    for (const char* activation : {"", "Relu", "HardSwish"}) {
      Case c{"ai.inferlab", "FusedConv", shape.attributes, {}};
      c.attributes["activation"] = string_attr(activation);
      c.attributes["activation_affine"] = floats_attr({0.5f, 0.25f});
      c.inputs = {random_float_tensor(shape.x, seed), random_float_tensor(shape.w, seed + 1),
                  random_float_tensor({shape.w[0]}, seed + 2)};
      if (shape.residual) {
        const Shape y = run(OpRegistry::reference(), c, false).output.shape();
        c.inputs.push_back(random_float_tensor(y, seed + 3));
      }
      seed += 4;
      const std::string label = shape.label + " " + activation;
      const Outcome fast = expect_channels_last_matches(c, {0, 3}, label);
      EXPECT_EQ(fast.implementation.rfind("panel_gemm_f32", 0) == 0, shape.panel)
          << label << ": " << fast.implementation;
    }
  }
}

TEST(ChannelsLast, PoolsMatchChannelsFirst) {
  struct PoolCase {
    std::string label;
    std::string op;
    Shape x;
    model::AttributeMap attributes;
  };
  const std::vector<PoolCase> cases = {
      {"max 3x3 s2 p1",
       "MaxPool",
       {1, 16, 20, 20},
       {{"kernel_shape", ints_attr({3, 3})},
        {"strides", ints_attr({2, 2})},
        {"pads", ints_attr({1, 1, 1, 1})}}},
      {"max ceil_mode",
       "MaxPool",
       {2, 3, 10, 11},
       {{"kernel_shape", ints_attr({3, 3})},
        {"strides", ints_attr({2, 2})},
        {"ceil_mode", int_attr(1)}}},
      {"average include pad",
       "AveragePool",
       {1, 9, 14, 14},
       {{"kernel_shape", ints_attr({3, 3})},
        {"pads", ints_attr({1, 0, 1, 2})},
        {"count_include_pad", int_attr(1)}}},
      {"global average 7x7", "GlobalAveragePool", {2, 37, 7, 7}, {}},
      {"global average 1x1", "GlobalAveragePool", {1, 5, 1, 1}, {}},
  };
  uint32_t seed = 90;
  for (const PoolCase& p : cases) {
    Case c{"", p.op, p.attributes, {random_float_tensor(p.x, seed++)}};
    expect_channels_last_matches(c, {0}, p.label);
  }
}

TEST(ChannelsLast, ABadChannelsLastValueIsAnErrorNamingTheNode) {
  Case c{"ai.inferlab",
         "FusedConv",
         {{"channels_last", int_attr(2)}},
         {random_float_tensor({1, 4, 4, 2}, 1), random_float_tensor({3, 2, 1, 1}, 2)}};
  try {
    run(OpRegistry::reference(), c, false);
    FAIL() << "channels_last = 2 was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("channels_last"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("node"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace inferlab::kernels
