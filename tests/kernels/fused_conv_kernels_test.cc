// ai.inferlab FusedConv / FusedGemm / FusedMatMul against the unfused chain
// of reference kernels (Conv/Gemm/MatMul, Add, then the standalone
// activation) on awkward shapes: groups, depthwise, strides, pads,
// dilations, batch 2, with and without B and Z, every activation.
#include <gtest/gtest.h>

#include <optional>

#include "inferlab/kernels/registry.h"
#include "tensor_ops_harness.h"
#include "test_util.h"

namespace inferlab::kernels {
namespace {

using inferlab::testing::floats_attr;
using inferlab::testing::int_attr;
using inferlab::testing::ints_attr;
using inferlab::testing::random_float_tensor;
using inferlab::testing::string_attr;
using Inputs = std::vector<std::optional<Tensor>>;

Tensor run_kernel(const std::string& domain, const std::string& op, int64_t opset,
                  const model::AttributeMap& attributes, const Inputs& inputs) {
  const OpKernel* kernel = OpRegistry::reference().find(domain, op, opset);
  if (kernel == nullptr) throw std::runtime_error("no kernel " + domain + "::" + op);
  const std::string name = "node";
  const NodeInfo node(name, op, opset, attributes);
  std::vector<ValueFacts> facts;
  std::vector<const Tensor*> pointers;
  for (const auto& input : inputs) {
    facts.push_back(input ? ValueFacts{input->dtype(), input->shape(), nullptr} : ValueFacts{});
    pointers.push_back(input ? &*input : nullptr);
  }
  InferContext infer(node, facts, 1);
  kernel->infer(infer);
  std::vector<Tensor> outputs(1);
  KernelContext context(node, pointers, outputs);
  kernel->compute(context);
  EXPECT_EQ(*infer.outputs()[0]->second, outputs[0].shape()) << op;
  return outputs[0];
}

struct Act {
  std::string name;
  std::vector<float> params;
};

const std::vector<Act>& activations() {
  static const std::vector<Act> all{{"", {}},
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
  return all;
}

// The standalone operators computing `act` on x.
Tensor reference_activation(const Act& act, const Tensor& x) {
  const std::string& n = act.name;
  if (n.empty()) return x;
  if (n == "LeakyRelu")
    return run_kernel("", n, 17, {{"alpha", inferlab::testing::float_attr(act.params[0])}}, {x});
  if (n == "HardSigmoid") {
    return run_kernel("", n, 17,
                      {{"alpha", inferlab::testing::float_attr(act.params[0])},
                       {"beta", inferlab::testing::float_attr(act.params[1])}},
                      {x});
  }
  if (n == "Clip") {
    return run_kernel(
        "", n, 17, {},
        {x, Tensor::scalar<float>(act.params[0]), Tensor::scalar<float>(act.params[1])});
  }
  if (n == "Gelu") return run_kernel("com.microsoft", "Gelu", 1, {}, {x});
  if (n == "GeluTanh") return run_kernel("com.microsoft", "FastGelu", 1, {}, {x});
  if (n == "SiLU")
    return run_kernel("", "Mul", 17, {}, {x, run_kernel("", "Sigmoid", 17, {}, {x})});
  return run_kernel("", n, 17, {}, {x});
}

model::AttributeMap with_activation(model::AttributeMap attributes, const Act& act) {
  if (!act.name.empty()) attributes["activation"] = string_attr(act.name);
  if (!act.params.empty()) attributes["activation_params"] = floats_attr(act.params);
  return attributes;
}

void expect_close(const Tensor& actual, const Tensor& expected, const std::string& what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  EXPECT_LE(inferlab::testing::relative_error(actual, expected), 1e-6) << what;
}

struct ConvCase {
  std::string label;
  Shape x, w;
  model::AttributeMap attributes;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"grouped strided padded",
       {2, 6, 9, 7},
       {6, 2, 3, 3},
       {{"group", int_attr(3)}, {"strides", ints_attr({2, 1})}, {"pads", ints_attr({1, 0, 2, 1})}}},
      {"depthwise dilated",
       {2, 4, 8, 8},
       {4, 1, 3, 3},
       {{"group", int_attr(4)},
        {"dilations", ints_attr({2, 2})},
        {"pads", ints_attr({2, 2, 2, 2})}}},
      {"pointwise", {2, 5, 4, 3}, {7, 5, 1, 1}, {}},
      {"1-d same_upper", {2, 3, 10}, {4, 3, 4}, {{"auto_pad", string_attr("SAME_UPPER")}}},
  };
}

TEST(FusedConvKernel, MatchesConvAddActivationChain) {
  uint32_t seed = 1;
  for (const ConvCase& c : conv_cases()) {
    const Tensor x = random_float_tensor(c.x, seed++, -2.0f, 2.0f);
    const Tensor w = random_float_tensor(c.w, seed++);
    const Tensor b = random_float_tensor({c.w[0]}, seed++);
    for (bool with_bias : {false, true}) {
      const Inputs conv_inputs = with_bias ? Inputs{x, w, b} : Inputs{x, w};
      const Tensor conv = run_kernel("", "Conv", 17, c.attributes, conv_inputs);
      const Tensor z = random_float_tensor(conv.shape(), seed++);
      for (bool with_z : {false, true}) {
        const Tensor sum = with_z ? run_kernel("", "Add", 17, {}, {conv, z}) : conv;
        for (const Act& act : activations()) {
          Inputs inputs = conv_inputs;
          if (with_z) {
            if (!with_bias) inputs.push_back(std::nullopt);
            inputs.push_back(z);
          }
          const Tensor fused =
              run_kernel("ai.inferlab", "FusedConv", 1, with_activation(c.attributes, act), inputs);
          expect_close(fused, reference_activation(act, sum),
                       c.label + " bias " + std::to_string(with_bias) + " z " +
                           std::to_string(with_z) + " " + act.name);
        }
      }
    }
  }
}

TEST(FusedConvKernel, RejectsBadResidualAndActivation) {
  const Tensor x = random_float_tensor({1, 2, 4, 4}, 1);
  const Tensor w = random_float_tensor({3, 2, 1, 1}, 2);
  inferlab::testing::expect_error(
      [&] {
        run_kernel("ai.inferlab", "FusedConv", 1, {},
                   {x, w, std::nullopt, random_float_tensor({1, 3, 1, 1}, 3)});
      },
      ErrorCode::kInvalidArgument, {"FusedConv node 'node'", "residual Z"});
  inferlab::testing::expect_error(
      [&] {
        run_kernel("ai.inferlab", "FusedConv", 1, {{"activation", string_attr("Elu")}}, {x, w});
      },
      ErrorCode::kInvalidModel, {"unknown activation 'Elu'"});
  inferlab::testing::expect_error(
      [&] {
        run_kernel("ai.inferlab", "FusedConv", 1, {{"activation", string_attr("Clip")}}, {x, w});
      },
      ErrorCode::kInvalidModel, {"takes 2 activation_params, got 0"});
  inferlab::testing::expect_error(
      [&] {
        run_kernel("ai.inferlab", "FusedConv", 1,
                   {{"activation", string_attr("Relu")},
                    {"activation_affine", floats_attr({1.0f, 0.5f, 2.0f})}},
                   {x, w});
      },
      ErrorCode::kInvalidModel,
      {"FusedConv node 'node'", "activation_affine takes [scale, shift]"});
}

TEST(FusedGemmKernel, MatchesGemmActivationChain) {
  const Tensor a = random_float_tensor({7, 5}, 1, -2.0f, 2.0f);  // transA: op(A) is 5 x 7
  const Tensor b = random_float_tensor({4, 7}, 2);               // transB: op(B) is 7 x 4
  const Tensor c = random_float_tensor({4}, 3);
  const model::AttributeMap attributes{{"transA", int_attr(1)},
                                       {"transB", int_attr(1)},
                                       {"alpha", inferlab::testing::float_attr(0.7f)},
                                       {"beta", inferlab::testing::float_attr(1.5f)}};
  for (bool with_c : {false, true}) {
    const Inputs inputs = with_c ? Inputs{a, b, c} : Inputs{a, b};
    const Tensor gemm = run_kernel("", "Gemm", 17, attributes, inputs);
    for (const Act& act : activations()) {
      const Tensor fused =
          run_kernel("ai.inferlab", "FusedGemm", 1, with_activation(attributes, act), inputs);
      expect_close(fused, reference_activation(act, gemm), "gemm " + act.name);
    }
  }
}

TEST(FusedMatMulKernel, MatchesMatMulBiasActivationChain) {
  const std::vector<std::pair<Shape, Shape>> shapes{
      {{2, 3, 5, 7}, {7, 4}}, {{3, 7}, {2, 7, 4}}, {{6, 7}, {7, 4}}};
  uint32_t seed = 10;
  for (const auto& [a_shape, b_shape] : shapes) {
    const Tensor a = random_float_tensor(a_shape, seed++, -2.0f, 2.0f);
    const Tensor b = random_float_tensor(b_shape, seed++);
    const Tensor bias = random_float_tensor({4}, seed++);
    const Tensor product = run_kernel("", "MatMul", 17, {}, {a, b});
    for (bool with_bias : {false, true}) {
      const Tensor sum = with_bias ? run_kernel("", "Add", 17, {}, {product, bias}) : product;
      for (const Act& act : activations()) {
        const Tensor fused = run_kernel("ai.inferlab", "FusedMatMul", 1, with_activation({}, act),
                                        with_bias ? Inputs{a, b, bias} : Inputs{a, b});
        expect_close(fused, reference_activation(act, sum),
                     shape_to_string(a_shape) + " " + act.name);
      }
    }
  }
}

TEST(FusedMatMulKernel, RejectsBiasOfWrongLength) {
  inferlab::testing::expect_error(
      [&] {
        run_kernel("ai.inferlab", "FusedMatMul", 1, {},
                   {random_float_tensor({3, 5}, 1), random_float_tensor({5, 4}, 2),
                    random_float_tensor({3}, 3)});
      },
      ErrorCode::kInvalidArgument, {"FusedMatMul node 'node'", "bias must be 1-D"});
}

// A run plan may place the output over the residual Z (its buffer dies at
// the node): the reference kernel, which writes the convolution before
// adding Z, must still add Z's values, not its own partial result.
TEST(FusedConvKernel, AnOutputPlacedOverTheResidualStillAddsIt) {
  const Tensor x = random_float_tensor({1, 3, 6, 5}, 31);
  const Tensor w = random_float_tensor({4, 3, 3, 3}, 32);
  const Tensor z = random_float_tensor({1, 4, 6, 5}, 33);
  const model::AttributeMap attributes = {{"pads", ints_attr({1, 1, 1, 1})},
                                          {"activation", string_attr("Relu")}};
  const Tensor expected =
      run_kernel("ai.inferlab", "FusedConv", 1, attributes, {x, w, std::nullopt, z});

  const OpKernel* kernel = OpRegistry::reference().find("ai.inferlab", "FusedConv", 1);
  ASSERT_NE(kernel, nullptr);
  const std::string name = "node";
  const std::string op_type = "FusedConv";  // NodeInfo keeps a reference
  const NodeInfo node(name, op_type, 1, attributes);
  Tensor shared = z.clone();  // Z's buffer, which the plan gave the output too
  std::vector<Tensor> outputs = {
      Tensor::borrow(DataType::kFloat32, shared.shape(), shared.raw_data())};
  KernelContext context(node, {&x, &w, nullptr, &shared}, outputs);
  kernel->compute(context);
  EXPECT_EQ(outputs[0].raw_data(), shared.raw_data());
  EXPECT_LE(inferlab::testing::relative_error(outputs[0], expected), 1e-6);
}

}  // namespace
}  // namespace inferlab::kernels
