// Dropout in inference: identity output, all-true mask, and the unsupported
// random training case.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(Dropout, IsIdentityWithTrueMask) {
  NodeRun dropout{"Dropout", 13, {}};
  const Tensor x = make<float>({1, -2, 3}, {3});
  const auto out = dropout.run({x}, 2);
  expect_values(out[0], {3}, {1, -2, 3});
  EXPECT_EQ(out[1].dtype(), DataType::kBool);
  EXPECT_EQ(values_of<bool>(out[1]), (std::vector<bool>{true, true, true}));
}

TEST(Dropout, TrainingWithZeroRatioIsIdentity) {
  NodeRun dropout{"Dropout", 13, {}};
  const auto out =
      dropout.run({make<float>({4, 5}, {2}), make<float>({0}, {}), make<bool>({true}, {})});
  expect_values(out[0], {2}, {4, 5});
}

TEST(Dropout, Opset7MaskHasInputType) {
  NodeRun dropout{"Dropout", 7, {{"ratio", float_attr(0.3f)}}};
  const auto out = dropout.run({make<float>({4, 5}, {2})}, 2);
  EXPECT_EQ(out[1].dtype(), DataType::kFloat32);
}

TEST(Dropout, RejectsRandomTrainingNamingTheNode) {
  NodeRun dropout{"Dropout", 13, {}};
  expect_error(
      [&] {
        dropout.run({make<float>({4, 5}, {2}), make<float>({0.5f}, {}), make<bool>({true}, {})});
      },
      ErrorCode::kUnsupported, {"Dropout node 'node'", "training_mode"});
}

}  // namespace
}  // namespace inferlab::testing
