// GRU reference kernel against torch.nn.GRU (linear_before_reset = 1 is
// PyTorch's formulation), plus sequence_lens, layout and error handling.
//
// Expected values come from torch 1.13 in float64 with ONNX weights mapped to
// PyTorch's gate order (ONNX z,r,h -> torch r,z,n; B split into bias_ih,
// bias_hh), inputs sine_tensor(...) as below; each batch entry is run alone
// for its sequence length:
//   W = sine([D, 3H, I], 0.1), R = sine([D, 3H, H], 0.2), B = sine([D, 6H], 0.3),
//   X = sine([T, B, I], 0.4), initial_h = sine([D, B, H], 0.5)
//   net = torch.nn.GRU(I, H, bidirectional=True); out, h_n = net(X[:L, b:b+1], h0[:, b:b+1])
#include <gtest/gtest.h>

#include "kernels/rnn_test_support.h"

namespace inferlab::testing {
namespace {

// T = 3 steps, B = 2 batch, I = 3 inputs, H = 4 hidden, D = 2 directions.
const std::vector<double> kBidirectionalY = {
    0.251474,    0.34604924,  -0.0221608,   -0.19330678,  0.33333273,   0.22781762,  -0.082875595,
    -0.29499176, -0.21926349, -0.28243255,  -0.20041553,  0.22229586,   -0.24891508, -0.18059422,
    -0.18212221, 0.31273483,  0.22596608,   0.25786694,   -0.055759976, -0.29856112, 0.20841355,
    0.44682983,  0.16554104,  -0.34333515,  -0.10529896,  -0.082084227, -0.17309066, -0.12882533,
    -0.13940103, 0.052446346, -0.053860422, -0.078912013, 0.1427223,    0.46100388,  0.21278449,
    -0.32412692, 0.13288057,  0.34339204,   0.11537909,   -0.33960395,  0.023597766, 0.12383716,
    -0.17136047, -0.42780259, -0.39270753,  -0.3247487,   -0.16964459,  0.010576616};
const std::vector<double> kBidirectionalYh = {0.1427223,   0.46100388,  0.21278449,  -0.32412692,
                                              0.13288057,  0.34339204,  0.11537909,  -0.33960395,
                                              -0.21926349, -0.28243255, -0.20041553, 0.22229586,
                                              -0.24891508, -0.18059422, -0.18212221, 0.31273483};
const std::vector<double> kSequenceLensY = {0.251474,
                                            0.34604924,
                                            -0.0221608,
                                            -0.19330678,
                                            0.33333273,
                                            0.22781762,
                                            -0.082875595,
                                            -0.29499176,
                                            -0.21926349,
                                            -0.28243255,
                                            -0.20041553,
                                            0.22229586,
                                            -0.2612563,
                                            -0.2022919,
                                            -0.22449534,
                                            0.27500429,
                                            0.22596608,
                                            0.25786694,
                                            -0.055759976,
                                            -0.29856112,
                                            0.20841355,
                                            0.44682983,
                                            0.16554104,
                                            -0.34333515,
                                            -0.10529896,
                                            -0.082084227,
                                            -0.17309066,
                                            -0.12882533,
                                            -0.15975753,
                                            0.042601141,
                                            -0.11243742,
                                            -0.15983365,
                                            0.1427223,
                                            0.46100388,
                                            0.21278449,
                                            -0.32412692,
                                            0,
                                            0,
                                            0,
                                            0,
                                            0.023597766,
                                            0.12383716,
                                            -0.17136047,
                                            -0.42780259,
                                            0,
                                            0,
                                            0,
                                            0};
const std::vector<double> kSequenceLensYh = {0.1427223,   0.46100388,  0.21278449,  -0.32412692,
                                             0.20841355,  0.44682983,  0.16554104,  -0.34333515,
                                             -0.21926349, -0.28243255, -0.20041553, 0.22229586,
                                             -0.2612563,  -0.2022919,  -0.22449534, 0.27500429};

constexpr int64_t kSteps = 3, kBatch = 2, kInput = 3, kHidden = 4, kDirections = 2;

model::AttributeMap bidirectional_attributes() {
  return {{"direction", string_attribute("bidirectional")},
          {"hidden_size", int_attribute(kHidden)},
          {"linear_before_reset", int_attribute(1)}};
}

// X, W, R, B, sequence_lens, initial_h in ONNX layout 0.
std::vector<Tensor> gru_inputs(DataType dtype, Tensor sequence_lens = {}) {
  return {sine_tensor(dtype, {kSteps, kBatch, kInput}, 0.4),
          sine_tensor(dtype, {kDirections, 3 * kHidden, kInput}, 0.1),
          sine_tensor(dtype, {kDirections, 3 * kHidden, kHidden}, 0.2),
          sine_tensor(dtype, {kDirections, 6 * kHidden}, 0.3),
          sequence_lens,
          sine_tensor(dtype, {kDirections, kBatch, kHidden}, 0.5)};
}

const Shape kYShape = {kSteps, kDirections, kBatch, kHidden};
const Shape kStateShape = {kDirections, kBatch, kHidden};

TEST(GRU, MatchesTorchBidirectionalWithBiasAndInitialState) {
  const auto outputs =
      run_rnn_node("GRU", bidirectional_attributes(), gru_inputs(DataType::kFloat32), 2);
  expect_tensor_near(outputs[0], kYShape, kBidirectionalY, "Y");
  expect_tensor_near(outputs[1], kStateShape, kBidirectionalYh, "Y_h");
}

TEST(GRU, MatchesTorchInDouble) {
  const auto outputs = run_rnn_node("GRU", bidirectional_attributes(),
                                    gru_inputs(DataType::kFloat64), 2, /*opset=*/7);
  EXPECT_EQ(outputs[0].dtype(), DataType::kFloat64);
  expect_tensor_near(outputs[0], kYShape, kBidirectionalY, "Y");
  expect_tensor_near(outputs[1], kStateShape, kBidirectionalYh, "Y_h");
}

TEST(GRU, SequenceLensZeroesStepsPastEachLengthAndKeepsLastValidState) {
  const Tensor lengths = Tensor::from_vector<int32_t>({3, 2}, {kBatch});
  const auto outputs =
      run_rnn_node("GRU", bidirectional_attributes(), gru_inputs(DataType::kFloat32, lengths), 2);
  expect_tensor_near(outputs[0], kYShape, kSequenceLensY, "Y");
  expect_tensor_near(outputs[1], kStateShape, kSequenceLensYh, "Y_h");
}

TEST(GRU, BatchMajorLayoutMatchesSequenceMajor) {
  std::vector<Tensor> inputs = gru_inputs(DataType::kFloat32);
  inputs[0] = swap_leading_axes(inputs[0]);
  inputs[5] = swap_leading_axes(inputs[5]);
  model::AttributeMap attributes = bidirectional_attributes();
  attributes["layout"] = int_attribute(1);
  const auto outputs = run_rnn_node("GRU", attributes, inputs, 2);
  ASSERT_EQ(outputs[0].shape(), (Shape{kBatch, kSteps, kDirections, kHidden}));
  const std::vector<double> y = y_layout1_to_layout0(outputs[0]);
  const std::vector<double> y_h = state_layout1_to_layout0(outputs[1]);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], kBidirectionalY[i], 1e-5) << i;
  for (size_t i = 0; i < y_h.size(); ++i) EXPECT_NEAR(y_h[i], kBidirectionalYh[i], 1e-5) << i;
}

TEST(GRU, ProducesOnlyTheRequestedOutputs) {
  const auto outputs =
      run_rnn_node("GRU", bidirectional_attributes(), gru_inputs(DataType::kFloat32), 1);
  ASSERT_EQ(outputs.size(), 1u);
  expect_tensor_near(outputs[0], kYShape, kBidirectionalY, "Y");
}

TEST(GRU, DefaultsRunWithoutOptionalInputs) {
  // Forward, no B, no initial_h, hidden_size taken from R: zero input gives
  // zero state, because every pre-activation of the candidate is zero.
  const Tensor x(DataType::kFloat32, {2, 1, kInput});
  const std::vector<Tensor> inputs = {
      x, sine_tensor(DataType::kFloat32, {1, 3 * kHidden, kInput}, 0.1),
      sine_tensor(DataType::kFloat32, {1, 3 * kHidden, kHidden}, 0.2)};
  const auto outputs = run_rnn_node("GRU", {}, inputs, 2);
  expect_tensor_near(outputs[0], {2, 1, 1, kHidden}, std::vector<double>(2 * kHidden, 0.0), "Y");
  expect_tensor_near(outputs[1], {1, 1, kHidden}, std::vector<double>(kHidden, 0.0), "Y_h");
}

model::Attribute floats_attribute(const std::vector<float>& values) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kFloats;
  attribute.floats = values;
  return attribute;
}

// One step, H = I = 1, W = R = 0, written out by hand: alpha values are
// consumed in order by the activations that take one (HardSigmoid 0.3, then
// LeakyRelu 0.1), beta values likewise (HardSigmoid 0.6); clip bounds every
// activation input.
TEST(GRU, ActivationsConsumeAlphaBetaInOrderAndClipBoundsTheirInputs) {
  const Tensor x = Tensor::from_vector<float>({0.0f}, {1, 1, 1});
  const Tensor w(DataType::kFloat32, {1, 3, 1});
  const Tensor r(DataType::kFloat32, {1, 3, 1});
  // Wb = [z, r, h], Rb = 0.
  const Tensor b = Tensor::from_vector<float>({0.5f, 0.0f, -2.0f, 0, 0, 0}, {1, 6});
  const Tensor h0 = Tensor::from_vector<float>({0.5f}, {1, 1, 1});
  model::Attribute activations;
  activations.kind = model::Attribute::Kind::kStrings;
  activations.strings = {"HardSigmoid", "LeakyRelu"};
  model::AttributeMap attributes = {{"activations", activations},
                                    {"activation_alpha", floats_attribute({0.3f, 0.1f})},
                                    {"activation_beta", floats_attribute({0.6f})}};
  const double z = 0.3 * 0.5 + 0.6;
  auto outputs = run_rnn_node("GRU", attributes, {x, w, r, b, Tensor{}, h0}, 2);
  expect_tensor_near(outputs[1], {1, 1, 1}, {(1 - z) * (0.1 * -2.0) + z * 0.5}, "Y_h");

  attributes["clip"] = float_attribute(1.0f);
  outputs = run_rnn_node("GRU", attributes, {x, w, r, b, Tensor{}, h0}, 2);
  expect_tensor_near(outputs[1], {1, 1, 1}, {(1 - z) * (0.1 * -1.0) + z * 0.5}, "Y_h");
}

void expect_error_naming_node(const model::AttributeMap& attributes,
                              const std::vector<Tensor>& inputs, ErrorCode code,
                              const std::string& fragment) {
  try {
    run_rnn_node("GRU", attributes, inputs, 2);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code);
    const std::string message = error.what();
    EXPECT_NE(message.find("GRU node 'rnn_under_test'"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(GRU, RejectsWrongWeightShapeNamingTheNode) {
  std::vector<Tensor> inputs = gru_inputs(DataType::kFloat32);
  inputs[1] = sine_tensor(DataType::kFloat32, {kDirections, 3 * kHidden, kInput + 1}, 0.1);
  expect_error_naming_node(bidirectional_attributes(), inputs, ErrorCode::kInvalidArgument,
                           "input W has shape [2, 12, 4]");
}

TEST(GRU, RejectsHiddenSizeMismatchNamingTheNode) {
  model::AttributeMap attributes = bidirectional_attributes();
  attributes["hidden_size"] = int_attribute(5);
  expect_error_naming_node(attributes, gru_inputs(DataType::kFloat32), ErrorCode::kInvalidArgument,
                           "hidden_size 5");
}

TEST(GRU, RejectsDirectionCountThatDisagreesWithW) {
  model::AttributeMap attributes = bidirectional_attributes();
  attributes["direction"] = string_attribute("forward");
  expect_error_naming_node(attributes, gru_inputs(DataType::kFloat32), ErrorCode::kInvalidArgument,
                           "input W has shape");
}

TEST(GRU, RejectsSequenceLengthLongerThanX) {
  const Tensor lengths = Tensor::from_vector<int32_t>({3, 4}, {kBatch});
  expect_error_naming_node(bidirectional_attributes(), gru_inputs(DataType::kFloat32, lengths),
                           ErrorCode::kOutOfRange, "sequence_lens[1] = 4");
}

TEST(GRU, RejectsUnknownActivation) {
  model::AttributeMap attributes = bidirectional_attributes();
  model::Attribute activations;
  activations.kind = model::Attribute::Kind::kStrings;
  activations.strings = {"Sigmoid", "Gelu", "Sigmoid", "Tanh"};
  attributes["activations"] = activations;
  expect_error_naming_node(attributes, gru_inputs(DataType::kFloat32), ErrorCode::kUnsupported,
                           "activation 'Gelu'");
}

}  // namespace
}  // namespace inferlab::testing
