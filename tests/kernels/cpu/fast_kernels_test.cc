// Every fast kernel of kernels/cpu/ against the reference kernel it replaces,
// for every ISA this CPU runs, on awkward shapes: size 1, empty, odd sizes,
// 15/16/17/31/33 (around the vector widths), and broadcasting. Inputs come
// from a fixed seed. Tolerance: max |fast - ref| <= 2e-6 * max(1, |ref|)
// (1e-5 for exp-based kernels whose outputs reach e^4); Add/Sub/Mul/Div are
// compared exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "kernels/cpu/cpu_test_util.h"
#include "kernels/tensor_ops_harness.h"

namespace inferlab::kernels::cpu {
namespace {

using testing::float_attr;
using testing::int_attr;

struct Op {
  std::string domain;
  std::string type;
  int64_t opset = 17;
  model::AttributeMap attributes;
};

Tensor run(const OpRegistry& registry, const Op& op, const std::vector<std::optional<Tensor>>& in) {
  const OpKernel* kernel = registry.find(op.domain, op.type, op.opset);
  EXPECT_NE(kernel, nullptr) << op.type;
  const std::string name = "node";
  const NodeInfo node(name, op.type, op.opset, op.attributes);
  std::vector<const Tensor*> pointers;
  for (const auto& t : in) pointers.push_back(t ? &*t : nullptr);
  std::vector<Tensor> outputs(1);
  KernelContext context(node, pointers, outputs);
  kernel->compute(context);
  return outputs[0];
}

Tensor floats(const Shape& shape, uint32_t seed, float lo = -4.0f, float hi = 4.0f) {
  return testing::make<float>(random_floats(shape_numel(shape), seed, lo, hi), shape);
}

// Runs `op` on the reference and on every ISA's registry; compares.
void expect_matches(const Op& op, const std::vector<std::optional<Tensor>>& inputs,
                    double tolerance = 2e-6) {
  const Tensor expected = run(OpRegistry::reference(), op, inputs);
  for (Isa isa : supported_isas()) {
    const Tensor actual = run(OpRegistry::for_isa(isa), op, inputs);
    ASSERT_EQ(actual.shape(), expected.shape()) << op.type << " " << isa_name(isa);
    const float* a = actual.data<float>();
    const float* e = expected.data<float>();
    for (int64_t i = 0; i < expected.numel(); ++i) {
      if (std::isnan(e[i])) {
        EXPECT_TRUE(std::isnan(a[i])) << op.type << " " << isa_name(isa) << " at " << i;
        continue;
      }
      if (a[i] == e[i]) continue;  // infinities included
      const double bound = tolerance * std::max(1.0, std::fabs(static_cast<double>(e[i])));
      ASSERT_LE(std::fabs(static_cast<double>(a[i]) - e[i]), bound)
          << op.type << " " << isa_name(isa) << " at " << i << " of "
          << shape_to_string(expected.shape());
    }
  }
}

const std::vector<Shape> kAwkwardShapes = {{1},  {0},  {7},        {15},        {16},    {17},
                                           {31}, {33}, {3, 5, 33}, {2, 1, 129}, {4, 16}, {1, 1, 1}};

TEST(FastKernels, ActivationsMatchReferenceOnAwkwardShapes) {
  const std::vector<Op> ops = {
      {"", "Relu", 17, {}},
      {"", "LeakyRelu", 17, {{"alpha", float_attr(0.1f)}}},
      {"", "Sigmoid", 17, {}},
      {"", "HardSigmoid", 17, {{"alpha", float_attr(0.3f)}, {"beta", float_attr(0.4f)}}},
      {"", "HardSwish", 17, {}},
      {"ai.inferlab", "HardSwish", 1, {}},  // ONNX's, below opset 14
      {"", "Tanh", 17, {}},
      {"", "Erf", 17, {}},
      {"com.microsoft", "Gelu", 1, {}},
      {"com.microsoft", "FastGelu", 1, {}},
      {"", "Clip", 7, {{"min", float_attr(-1.5f)}, {"max", float_attr(2.0f)}}},
  };
  uint32_t seed = 1;
  for (const Op& op : ops) {
    for (const Shape& shape : kAwkwardShapes) expect_matches(op, {floats(shape, seed++, -8, 8)});
  }
  for (const Shape& shape : kAwkwardShapes) {
    expect_matches({"", "Exp", 17, {}}, {floats(shape, seed++)}, 1e-5);
  }
}

TEST(FastKernels, ActivationsMatchReferenceOnSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = testing::make<float>({0.0f, -0.0f, inf, -inf, nan, 1e30f, -1e30f, 80.0f, -80.0f,
                                         5.5f, -5.5f, 1e-20f, -3.0f, 3.0f, 0.5f, -0.5f, 6.0f},
                                        {17});
  for (const char* type : {"Relu", "Sigmoid", "HardSwish", "Tanh", "Erf", "Exp"}) {
    expect_matches({"", type, 17, {}}, {x});
  }
  expect_matches({"", "Clip", 13, {}},
                 {x, testing::make<float>({-1.0f}, {}), testing::make<float>({1.0f}, {})});
  expect_matches({"", "LeakyRelu", 17, {}}, {x});
}

TEST(FastKernels, BinaryOpsMatchReferenceExactlyWithBroadcasting) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{33}, {33}},
      {{1}, {1}},
      {{0}, {0}},
      {{2, 17}, {1}},
      {{1}, {2, 17}},
      {{2, 3, 5, 7}, {3, 1, 1}},
      {{3, 1, 1}, {2, 3, 5, 7}},
      {{2, 31, 15}, {15}},
      {{15}, {2, 31, 15}},
      {{2, 3, 4}, {3, 1}},
      {{2, 1, 5}, {2, 5, 1}},  // both broadcast: the reference path
      {{4, 16}, {1, 16}},
      {{5, 0, 3}, {3}}};
  uint32_t seed = 100;
  for (const char* type : {"Add", "Sub", "Mul", "Div"}) {
    for (const auto& [a, b] : shapes) {
      expect_matches({"", type, 14, {}}, {floats(a, seed++), floats(b, seed++, 0.5f, 4.0f)}, 0);
    }
  }
}

TEST(FastKernels, SoftmaxMatchesReferenceOnEveryAxis) {
  uint32_t seed = 200;
  for (const Shape& shape :
       std::vector<Shape>{{1}, {17}, {3, 33}, {2, 3, 16}, {2, 5, 31}, {4, 1, 15}, {2, 3, 4, 5}}) {
    for (int64_t axis = -static_cast<int64_t>(shape.size()); axis < 0; ++axis) {
      expect_matches({"", "Softmax", 13, {{"axis", int_attr(axis)}}}, {floats(shape, seed++)});
    }
  }
  // Before opset 13: the input flattened to 2-D at `axis`.
  expect_matches({"", "Softmax", 11, {{"axis", int_attr(1)}}}, {floats({2, 3, 17}, seed++)});
  // A masked row (-inf) and a large row.
  expect_matches(
      {"", "Softmax", 13, {}},
      {testing::make<float>(
          {-std::numeric_limits<float>::infinity(), 0.0f, 1.0f, 80.0f, 90.0f, 100.0f}, {2, 3})});
}

TEST(FastKernels, LayerNormalizationMatchesReference) {
  uint32_t seed = 300;
  for (const Shape& shape : std::vector<Shape>{{1, 1}, {3, 17}, {2, 5, 33}, {4, 768}, {2, 3, 16}}) {
    const Shape hidden{shape.back()};
    expect_matches({"", "LayerNormalization", 17, {}},
                   {floats(shape, seed++), floats(hidden, seed++), floats(hidden, seed++)}, 1e-5);
    expect_matches({"", "LayerNormalization", 17, {{"axis", int_attr(0)}}},
                   {floats(shape, seed++), floats(shape, seed++), std::nullopt}, 1e-5);
    expect_matches({"ai.inferlab", "LayerNormalization", 1, {}},
                   {floats(shape, seed++), floats(hidden, seed++), floats(hidden, seed++)}, 1e-5);
  }
}

TEST(FastKernels, SkipLayerNormalizationMatchesReference) {
  uint32_t seed = 400;
  for (const Shape& shape : std::vector<Shape>{{1, 1}, {3, 17}, {2, 5, 33}, {2, 4, 768}}) {
    const Shape hidden{shape.back()};
    const Op op{"com.microsoft", "SkipLayerNormalization", 1, {{"epsilon", float_attr(1e-5f)}}};
    expect_matches(op,
                   {floats(shape, seed++), floats(shape, seed++), floats(hidden, seed++),
                    floats(hidden, seed++), floats(hidden, seed++)},
                   1e-5);
    expect_matches(op, {floats(shape, seed++), floats(shape, seed++), floats(hidden, seed++)},
                   1e-5);
    if (shape.size() == 3) {  // skip broadcast over the batch
      const Shape trailing{shape[1], shape[2]};
      expect_matches(op, {floats(shape, seed++), floats(trailing, seed++), floats(hidden, seed++)},
                     1e-5);
    }
  }
}

TEST(FastKernels, BiasGeluAndFastGeluWithBiasMatchReference) {
  uint32_t seed = 500;
  for (const Shape& shape : std::vector<Shape>{{1}, {3, 17}, {2, 5, 33}, {2, 16}}) {
    const Shape channels{shape.back()};
    expect_matches({"com.microsoft", "BiasGelu", 1, {}},
                   {floats(shape, seed++), floats(channels, seed++)});
    expect_matches({"com.microsoft", "FastGelu", 1, {}},
                   {floats(shape, seed++), floats(channels, seed++)});
  }
}

TEST(FastKernels, NearestResizeByWholeFactorsMatchesReferenceExactly) {
  using testing::string_attr;
  const model::AttributeMap asymmetric_floor = {
      {"mode", string_attr("nearest")},
      {"coordinate_transformation_mode", string_attr("asymmetric")},
      {"nearest_mode", string_attr("floor")}};
  const Tensor empty_roi = testing::make<float>({}, {0});
  struct Case {
    Shape x;
    std::vector<float> scales;
  };
  const std::vector<Case> cases = {
      {{1, 3, 5, 7}, {1, 1, 2, 3}},  // channels-first: the innermost axis resized
      {{2, 4, 5, 3}, {1, 2, 2, 1}},  // channels-last: channel runs copied whole
      {{1, 16, 8, 8}, {1, 1, 4, 4}}, {{3, 5, 2}, {2, 1, 1}},
      {{1, 1, 1, 1}, {1, 1, 8, 8}},  {{2, 3}, {1, 1}},
  };
  uint32_t seed = 60;
  for (const Case& r : cases) {
    const Tensor x = floats(r.x, seed++);
    const Tensor scales = testing::make<float>(r.scales, {static_cast<int64_t>(r.scales.size())});
    expect_matches({"", "Resize", 13, asymmetric_floor}, {x, empty_roi, scales}, 0.0);
    // The same through sizes, and before opset 11 (scales as input 1).
    std::vector<int64_t> sizes;
    for (size_t i = 0; i < r.x.size(); ++i) {
      sizes.push_back(r.x[i] * static_cast<int64_t>(r.scales[i]));
    }
    const Tensor size_tensor = testing::make<int64_t>(sizes, {static_cast<int64_t>(sizes.size())});
    expect_matches({"", "Resize", 13, asymmetric_floor}, {x, empty_roi, std::nullopt, size_tensor},
                   0.0);
    expect_matches({"", "Resize", 10, {{"mode", string_attr("nearest")}}}, {x, scales}, 0.0);
  }
  // What the fast path declines still computes the reference's values.
  const Tensor x = floats({1, 2, 4, 6}, 7);
  const Tensor fractional = testing::make<float>({1, 1, 1.5f, 2}, {4});
  expect_matches({"", "Resize", 13, asymmetric_floor}, {x, empty_roi, fractional}, 0.0);
  const Tensor doubled = testing::make<float>({1, 1, 2, 2}, {4});
  expect_matches({"", "Resize", 13, {{"mode", string_attr("nearest")}}}, {x, empty_roi, doubled},
                 0.0);
  expect_matches({"", "Resize", 13, {{"mode", string_attr("linear")}}}, {x, empty_roi, doubled},
                 0.0);
}

TEST(FastKernels, ConcatMatchesReferenceExactlyOnEveryAxis) {
  using testing::int_attr;
  struct Case {
    std::vector<Shape> inputs;
    int64_t axis;
  };
  const std::vector<Case> cases = {
      {{{2, 3, 4}, {2, 5, 4}}, 1},
      {{{2, 3, 4}, {1, 3, 4}, {3, 3, 4}}, 0},
      {{{2, 3, 1}, {2, 3, 7}}, -1},
      // Channels-last maps of 24 channels (PaddleOCR's four 96-byte blocks).
      {{{1, 5, 6, 24}, {1, 5, 6, 24}, {1, 5, 6, 24}, {1, 5, 6, 24}}, 3},
      {{{1, 2, 3, 200}, {1, 2, 3, 9}}, 3},  // a block long enough for memcpy, then a short one
      {{{2, 0, 4}, {2, 3, 4}, {2, 0, 4}}, 1},
      {{{4, 3}}, 1},
  };
  uint32_t seed = 90;
  for (const Case& c : cases) {
    std::vector<std::optional<Tensor>> inputs;
    for (const Shape& shape : c.inputs) inputs.emplace_back(floats(shape, seed++));
    expect_matches({"", "Concat", 13, {{"axis", int_attr(c.axis)}}}, inputs, 0.0);
  }
  // Other element types are copied the same way: int64 shape values.
  const Op op{"", "Concat", 13, {{"axis", int_attr(0)}}};
  const Tensor a = testing::make<int64_t>({1, 128}, {2});
  const Tensor b = testing::make<int64_t>({12, 64, -1}, {3});
  for (Isa isa : supported_isas()) {
    const Tensor out = run(OpRegistry::for_isa(isa), op, {a, b});
    ASSERT_EQ(out.shape(), (Shape{5}));
    EXPECT_EQ(std::vector<int64_t>(out.data<int64_t>(), out.data<int64_t>() + 5),
              (std::vector<int64_t>{1, 128, 12, 64, -1}));
  }
}

TEST(FastKernels, ChannelsLastGlobalAveragePoolMatchesReference) {
  const Op op{"ai.inferlab", "NhwcGlobalAveragePool", 1, {}};
  uint32_t seed = 120;
  for (const Shape& shape : {Shape{1, 7, 7, 1152}, Shape{2, 5, 3, 17}, Shape{1, 1, 1, 3},
                             Shape{1, 56, 56, 144}, Shape{2, 9, 5}, Shape{1, 2, 3, 4, 5}}) {
    expect_matches(op, {floats(shape, seed++)}, 1e-5);
  }
}

TEST(FastKernels, ConcatErrorsStayTheReferenceKernels) {
  const Op op{"", "Concat", 13, {{"axis", testing::int_attr(1)}}};
  for (Isa isa : supported_isas()) {
    testing::expect_error(
        [&] {
          run(OpRegistry::for_isa(isa), op, {floats({2, 3}, 1), floats({4, 3}, 2)});
        },
        ErrorCode::kInvalidArgument, {"Concat node 'node'"});
    testing::expect_error(
        [&] {
          run(OpRegistry::for_isa(isa), op,
              {floats({2, 3}, 1), testing::make<int64_t>({1, 2}, {2, 1})});
        },
        ErrorCode::kInvalidArgument, {"Concat node 'node'", "input 1 is int64"});
  }
}

TEST(FastKernels, ErrorsStayTheReferenceKernels) {
  const Op op{"com.microsoft", "BiasGelu", 1, {}};
  for (Isa isa : supported_isas()) {
    testing::expect_error(
        [&] {
          run(OpRegistry::for_isa(isa), op, {floats({2, 3}, 1), floats({4}, 2)});
        },
        ErrorCode::kInvalidArgument, {"BiasGelu node 'node'", "input B"});
  }
}

}  // namespace
}  // namespace inferlab::kernels::cpu
