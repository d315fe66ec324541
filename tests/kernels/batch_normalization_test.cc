// BatchNormalization: inference, training mode (batch statistics and running
// updates, checked against torch with population variance), opset-7 spatial = 0.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(BatchNormalization, InferenceUsesRunningStatistics) {
  NodeRun bn{"BatchNormalization", 9, {{"epsilon", float_attr(0.0f)}}};
  const auto y =
      bn.run({make<float>({1, 2, 3, 4}, {1, 2, 2}), make<float>({1, 2}, {2}),
              make<float>({0, 1}, {2}), make<float>({1, 3}, {2}), make<float>({4, 1}, {2})});
  // channel 0: (x - 1) / 2; channel 1: 2 * (x - 3) + 1
  expect_values(y[0], {1, 2, 2}, {0, 0.5, 1, 3});
}

TEST(BatchNormalization, TrainingModeMatchesTorch) {
  NodeRun bn{"BatchNormalization", 15, {{"training_mode", int_attr(1)}}};
  Tensor var = pattern({3}, 5);
  for (int i = 0; i < 3; ++i) var.data<float>()[i] = std::fabs(var.data<float>()[i]) + 0.5f;
  const auto out = bn.run(
      {pattern({2, 3, 2, 2}, 2, 11), pattern({3}, 1), pattern({3}, 3), pattern({3}, 4), var}, 3);
  expect_values(out[0], {2, 3, 2, 2},
                {0.194886654, -1.71818221, -0.625,       0.468182205,  0.25,        0.25,
                 0.25,        0.25,        -1.81988665,  0.0931822051, -1,          -2.09318221,
                 -1.71818221, -0.625,      0.468182205,  -1.44488665,  0.25,        0.25,
                 0.25,        0.25,        0.0931822051, -1,           -2.09318221, -0.180113346});
  expect_values(out[1], {3}, {-0.4875, 0.2890625, -0.8125});
  expect_values(out[2], {3}, {0.803515625, 0.913061523, 1.14101563});
}

TEST(BatchNormalization, Opset7NonSpatialUsesPerElementStatistics) {
  NodeRun bn{"BatchNormalization", 7, {{"spatial", int_attr(0)}, {"epsilon", float_attr(0.0f)}}};
  const auto y = bn.run({make<float>({2, 4, 6, 8}, {1, 1, 4}), make<float>({1, 1, 1, 1}, {1, 4}),
                         make<float>({0, 0, 0, 0}, {1, 4}), make<float>({0, 4, 0, 4}, {1, 4}),
                         make<float>({4, 4, 1, 1}, {1, 4})});
  expect_values(y[0], {1, 1, 4}, {1, 0, 6, 4});
}

TEST(BatchNormalization, RejectsParameterOfWrongSize) {
  NodeRun bn{"BatchNormalization", 15, {}};
  const Tensor p = pattern({3});
  expect_error(
      [&] {
        bn.run({pattern({1, 2, 2}), p, p, p, p});
      },
      ErrorCode::kInvalidArgument, {"BatchNormalization node 'node'", "scale"});
}

}  // namespace
}  // namespace inferlab::testing
