// LSTM reference kernel against torch.nn.LSTM, plus sequence_lens, layout,
// peepholes, input_forget and error handling.
//
// Expected values come from torch 1.13 in float64 with ONNX weights mapped to
// PyTorch's gate order (ONNX i,o,f,c -> torch i,f,g,o; B split into bias_ih,
// bias_hh), inputs sine_tensor(...) as below; each batch entry is run alone
// for its sequence length:
//   W = sine([D, 4H, I], 0.1), R = sine([D, 4H, H], 0.2), B = sine([D, 8H], 0.3),
//   X = sine([T, B, I], 0.4), initial_h = sine([D, B, H], 0.5), initial_c = sine([D, B, H], 0.6)
//   net = torch.nn.LSTM(I, H, bidirectional=True)
//   out, (h_n, c_n) = net(X[:L, b:b+1], (h0[:, b:b+1], c0[:, b:b+1]))
#include <gtest/gtest.h>

#include "inferlab/kernels/reference/rnn_common.h"
#include "kernels/rnn_test_support.h"

namespace inferlab::testing {
namespace {

// T = 3 steps, B = 2 batch, I = 3 inputs, H = 4 hidden, D = 2 directions.
const std::vector<double> kBidirectionalY = {
    -0.18693805, 0.19987491,   -0.16407575, -0.18803358, -0.089610321, 0.042839298, -0.26594927,
    -0.2779075,  -0.084642411, -0.19207997, -0.33755207, -0.60881209,  -0.19729995, -0.15675664,
    -0.29429466, -0.59479181,  -0.31343267, -0.23657453, -0.3551829,   -0.29090014, -0.32536477,
    -0.24637856, -0.30768654,  0.023754165, -0.13135778, -0.26702835,  -0.32140289, -0.53875075,
    -0.28094208, -0.34557408,  -0.30436733, -0.43238296, -0.4110672,   -0.29558988, -0.38282462,
    0.10728421,  -0.34375266,  -0.33168299, -0.43688934, -0.15379293,  -0.12467717, -0.30645917,
    -0.29426341, -0.43791287,  -0.27658777, -0.26754977, -0.25852843,  -0.39868126};
const std::vector<double> kBidirectionalYh = {-0.4110672,   -0.29558988, -0.38282462, 0.10728421,
                                              -0.34375266,  -0.33168299, -0.43688934, -0.15379293,
                                              -0.084642411, -0.19207997, -0.33755207, -0.60881209,
                                              -0.19729995,  -0.15675664, -0.29429466, -0.59479181};
const std::vector<double> kBidirectionalYc = {-0.57086788, -0.50039957, -0.75859223, 0.18213208,
                                              -0.52789099, -0.57913581, -0.75711172, -0.22529713,
                                              -0.12092435, -0.37589658, -0.63622312, -0.9491278,
                                              -0.28632079, -0.32381947, -0.5878648,  -0.90524063};
const std::vector<double> kSequenceLensY = {-0.18693805,
                                            0.19987491,
                                            -0.16407575,
                                            -0.18803358,
                                            -0.089610321,
                                            0.042839298,
                                            -0.26594927,
                                            -0.2779075,
                                            -0.084642411,
                                            -0.19207997,
                                            -0.33755207,
                                            -0.60881209,
                                            -0.2508341,
                                            -0.15838792,
                                            -0.28157008,
                                            -0.54801308,
                                            -0.31343267,
                                            -0.23657453,
                                            -0.3551829,
                                            -0.29090014,
                                            -0.32536477,
                                            -0.24637856,
                                            -0.30768654,
                                            0.023754165,
                                            -0.13135778,
                                            -0.26702835,
                                            -0.32140289,
                                            -0.53875075,
                                            -0.33897693,
                                            -0.34916372,
                                            -0.22485682,
                                            -0.30483531,
                                            -0.4110672,
                                            -0.29558988,
                                            -0.38282462,
                                            0.10728421,
                                            0,
                                            0,
                                            0,
                                            0,
                                            -0.12467717,
                                            -0.30645917,
                                            -0.29426341,
                                            -0.43791287,
                                            0,
                                            0,
                                            0,
                                            0};
const std::vector<double> kSequenceLensYh = {-0.4110672,   -0.29558988, -0.38282462, 0.10728421,
                                             -0.32536477,  -0.24637856, -0.30768654, 0.023754165,
                                             -0.084642411, -0.19207997, -0.33755207, -0.60881209,
                                             -0.2508341,   -0.15838792, -0.28157008, -0.54801308};
const std::vector<double> kSequenceLensYc = {-0.57086788, -0.50039957, -0.75859223, 0.18213208,
                                             -0.4351139,  -0.37538911, -0.56949124, 0.043970498,
                                             -0.12092435, -0.37589658, -0.63622312, -0.9491278,
                                             -0.37414485, -0.31419291, -0.54351993, -0.81197018};

constexpr int64_t kSteps = 3, kBatch = 2, kInput = 3, kHidden = 4, kDirections = 2;

model::AttributeMap bidirectional_attributes() {
  return {{"direction", string_attribute("bidirectional")},
          {"hidden_size", int_attribute(kHidden)}};
}

// X, W, R, B, sequence_lens, initial_h, initial_c in ONNX layout 0.
std::vector<Tensor> lstm_inputs(DataType dtype, Tensor sequence_lens = {}) {
  return {sine_tensor(dtype, {kSteps, kBatch, kInput}, 0.4),
          sine_tensor(dtype, {kDirections, 4 * kHidden, kInput}, 0.1),
          sine_tensor(dtype, {kDirections, 4 * kHidden, kHidden}, 0.2),
          sine_tensor(dtype, {kDirections, 8 * kHidden}, 0.3),
          sequence_lens,
          sine_tensor(dtype, {kDirections, kBatch, kHidden}, 0.5),
          sine_tensor(dtype, {kDirections, kBatch, kHidden}, 0.6)};
}

const Shape kYShape = {kSteps, kDirections, kBatch, kHidden};
const Shape kStateShape = {kDirections, kBatch, kHidden};

TEST(LSTM, MatchesTorchBidirectionalWithBiasAndInitialStates) {
  const auto outputs =
      run_rnn_node("LSTM", bidirectional_attributes(), lstm_inputs(DataType::kFloat32), 3);
  expect_tensor_near(outputs[0], kYShape, kBidirectionalY, "Y");
  expect_tensor_near(outputs[1], kStateShape, kBidirectionalYh, "Y_h");
  expect_tensor_near(outputs[2], kStateShape, kBidirectionalYc, "Y_c");
}

TEST(LSTM, MatchesTorchInDouble) {
  const auto outputs = run_rnn_node("LSTM", bidirectional_attributes(),
                                    lstm_inputs(DataType::kFloat64), 3, /*opset=*/7);
  EXPECT_EQ(outputs[0].dtype(), DataType::kFloat64);
  expect_tensor_near(outputs[0], kYShape, kBidirectionalY, "Y");
  expect_tensor_near(outputs[2], kStateShape, kBidirectionalYc, "Y_c");
}

TEST(LSTM, SequenceLensZeroesStepsPastEachLengthAndKeepsLastValidState) {
  const Tensor lengths = Tensor::from_vector<int32_t>({3, 2}, {kBatch});
  const auto outputs =
      run_rnn_node("LSTM", bidirectional_attributes(), lstm_inputs(DataType::kFloat32, lengths), 3);
  expect_tensor_near(outputs[0], kYShape, kSequenceLensY, "Y");
  expect_tensor_near(outputs[1], kStateShape, kSequenceLensYh, "Y_h");
  expect_tensor_near(outputs[2], kStateShape, kSequenceLensYc, "Y_c");
}

TEST(LSTM, BatchMajorLayoutMatchesSequenceMajor) {
  std::vector<Tensor> inputs = lstm_inputs(DataType::kFloat32);
  inputs[0] = swap_leading_axes(inputs[0]);
  inputs[5] = swap_leading_axes(inputs[5]);
  inputs[6] = swap_leading_axes(inputs[6]);
  model::AttributeMap attributes = bidirectional_attributes();
  attributes["layout"] = int_attribute(1);
  const auto outputs = run_rnn_node("LSTM", attributes, inputs, 3);
  ASSERT_EQ(outputs[0].shape(), (Shape{kBatch, kSteps, kDirections, kHidden}));
  const std::vector<double> y = y_layout1_to_layout0(outputs[0]);
  const std::vector<double> y_c = state_layout1_to_layout0(outputs[2]);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], kBidirectionalY[i], 1e-5) << i;
  for (size_t i = 0; i < y_c.size(); ++i) EXPECT_NEAR(y_c[i], kBidirectionalYc[i], 1e-5) << i;
}

TEST(LSTM, ProducesOnlyTheRequestedOutputs) {
  const auto outputs =
      run_rnn_node("LSTM", bidirectional_attributes(), lstm_inputs(DataType::kFloat32), 2);
  ASSERT_EQ(outputs.size(), 2u);
  expect_tensor_near(outputs[1], kStateShape, kBidirectionalYh, "Y_h");
}

// One forward step, H = 1, I = 1, written out by hand: with W = R = 0 the
// gates see only their biases, the peepholes and the initial cell state.
TEST(LSTM, PeepholesAndInputForgetFollowTheOnnxEquations) {
  const Tensor x = Tensor::from_vector<float>({0.0f}, {1, 1, 1});
  const Tensor w(DataType::kFloat32, {1, 4, 1});
  const Tensor r(DataType::kFloat32, {1, 4, 1});
  // Wb = [i, o, f, c], Rb = 0.
  const Tensor b = Tensor::from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f, 0, 0, 0, 0}, {1, 8});
  const Tensor h0(DataType::kFloat32, {1, 1, 1});
  const Tensor c0 = Tensor::from_vector<float>({0.5f}, {1, 1, 1});
  const Tensor p = Tensor::from_vector<float>({0.6f, 0.7f, 0.8f}, {1, 3});  // [i, o, f]
  auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  for (int64_t input_forget : {0, 1}) {
    const double i = sigmoid(0.1 + 0.6 * 0.5);
    const double f = input_forget ? 1.0 - i : sigmoid(0.3 + 0.8 * 0.5);
    const double c = f * 0.5 + i * std::tanh(0.4);
    const double h = sigmoid(0.2 + 0.7 * c) * std::tanh(c);
    const auto outputs = run_rnn_node("LSTM", {{"input_forget", int_attribute(input_forget)}},
                                      {x, w, r, b, Tensor{}, h0, c0, p}, 3);
    expect_tensor_near(outputs[1], {1, 1, 1}, {h}, "Y_h");
    expect_tensor_near(outputs[2], {1, 1, 1}, {c}, "Y_c");
  }
}

TEST(RnnActivation, EachFunctionFollowsItsOnnxOperator) {
  using Kind = kernels::reference::RnnActivation::Kind;
  using kernels::reference::RnnActivation;
  struct Case {
    RnnActivation activation;
    double x;
    double expected;
  };
  const Case cases[] = {
      {RnnActivation(Kind::kRelu, 0, 0), -0.5, 0.0},
      {RnnActivation(Kind::kTanh, 0, 0), 0.7, std::tanh(0.7)},
      {RnnActivation(Kind::kSigmoid, 0, 0), -30.0, 1.0 / (1.0 + std::exp(30.0))},
      {RnnActivation(Kind::kAffine, 2.0, 0.5), 0.7, 1.9},
      {RnnActivation(Kind::kLeakyRelu, 0.1, 0), -0.5, -0.05},
      {RnnActivation(Kind::kThresholdedRelu, 1.0, 0), 0.7, 0.0},
      {RnnActivation(Kind::kThresholdedRelu, 0.5, 0), 0.7, 0.7},
      {RnnActivation(Kind::kScaledTanh, 2.0, 0.5), 0.7, 2.0 * std::tanh(0.35)},
      {RnnActivation(Kind::kHardSigmoid, 0.2, 0.5), 0.7, 0.64},
      {RnnActivation(Kind::kHardSigmoid, 0.2, 0.5), 4.0, 1.0},
      {RnnActivation(Kind::kElu, 1.5, 0), -0.5, 1.5 * (std::exp(-0.5) - 1.0)},
      {RnnActivation(Kind::kSoftsign, 0, 0), -0.5, -0.5 / 1.5},
      {RnnActivation(Kind::kSoftplus, 0, 0), 0.7, std::log(1.0 + std::exp(0.7))},
      {RnnActivation(Kind::kSoftplus, 0, 0), 100.0, 100.0},
  };
  for (const Case& c : cases) EXPECT_NEAR(c.activation(c.x), c.expected, 1e-12) << c.x;
}

void expect_error_naming_node(const model::AttributeMap& attributes,
                              const std::vector<Tensor>& inputs, ErrorCode code,
                              const std::string& fragment) {
  try {
    run_rnn_node("LSTM", attributes, inputs, 3);
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code);
    const std::string message = error.what();
    EXPECT_NE(message.find("LSTM node 'rnn_under_test'"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(LSTM, RejectsWrongWeightShapeNamingTheNode) {
  std::vector<Tensor> inputs = lstm_inputs(DataType::kFloat32);
  inputs[1] = sine_tensor(DataType::kFloat32, {kDirections, 3 * kHidden, kInput}, 0.1);
  expect_error_naming_node(bidirectional_attributes(), inputs, ErrorCode::kInvalidArgument,
                           "input W has shape [2, 12, 3]");
}

TEST(LSTM, RejectsHiddenSizeMismatchNamingTheNode) {
  model::AttributeMap attributes = bidirectional_attributes();
  attributes["hidden_size"] = int_attribute(3);
  expect_error_naming_node(attributes, lstm_inputs(DataType::kFloat32), ErrorCode::kInvalidArgument,
                           "hidden_size 3");
}

TEST(LSTM, RejectsInitialCellStateOfWrongShape) {
  std::vector<Tensor> inputs = lstm_inputs(DataType::kFloat32);
  inputs[6] = sine_tensor(DataType::kFloat32, {kDirections, kBatch + 1, kHidden}, 0.6);
  expect_error_naming_node(bidirectional_attributes(), inputs, ErrorCode::kInvalidArgument,
                           "input initial_c has shape [2, 3, 4], expected [2, 2, 4]");
}

TEST(LSTM, RejectsIntegerInput) {
  std::vector<Tensor> inputs = lstm_inputs(DataType::kFloat32);
  inputs[0] = Tensor(DataType::kInt32, {kSteps, kBatch, kInput});
  expect_error_naming_node(bidirectional_attributes(), inputs, ErrorCode::kUnsupported,
                           "input X has element type int32");
}

}  // namespace
}  // namespace inferlab::testing
