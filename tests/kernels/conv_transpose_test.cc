// ConvTranspose: values against torch, output_shape / auto_pad geometry, errors.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(ConvTranspose, MatchesTorchWithGroupsStridePadsOutputPaddingAndDilation) {
  NodeRun conv{"ConvTranspose",
               11,
               {{"group", int_attr(2)},
                {"strides", ints_attr({2, 2})},
                {"pads", ints_attr({1, 0, 1, 0})},
                {"output_padding", ints_attr({1, 0})},
                {"dilations", ints_attr({1, 2})}}};
  const auto y = conv.run({pattern({1, 4, 3, 3}), pattern({4, 1, 3, 2}, 2), pattern({2}, 4)});
  expect_values(
      y[0], {1, 2, 6, 7},
      {-1.5625,  -0.5,      0.09375,   -0.5,     -0.296875, -0.5,      -0.59375,  -0.75,
       -0.5,     -0.796875, -0.5,      0.8125,   -0.5,      -1.65625,  -1.125,    -0.5,
       0.78125,  -0.5,      -1.734375, -0.5,     0.1875,    -1.46875,  -0.5,      0.578125,
       -0.5,     -1.796875, -0.5,      1.234375, -0.421875, -0.5,      -0.125,    -0.5,
       -0.78125, -0.5,      -1.15625,  -0.1875,  -0.5,      -0.3125,   -0.5,      -0.6875,
       -0.5,     -0.640625, 0.453125,  0.375,    0.578125,  0.375,     -0.515625, 0.375,
       1.1875,   0.421875,  0.375,     1.171875, 0.375,     -0.484375, 0.375,     0.375,
       0.765625, 0.375,     -0.84375,  0.375,    1.25,      0.375,     -0.015625, -0.015625,
       0.375,    -0.34375,  0.375,     0.125,    0.375,     0.09375,   1.078125,  0.375,
       0.125,    0.375,     0.359375,  0.375,    0.109375,  0.65625,   0.375,     0.21875,
       0.375,    0.734375,  0.375,     -0.03125});
}

TEST(ConvTranspose, OutputShapeAttributeSetsPads) {
  NodeRun conv{
      "ConvTranspose", 11, {{"strides", ints_attr({3, 2})}, {"output_shape", ints_attr({10, 8})}}};
  const auto y = conv.run({pattern({1, 1, 3, 3}), pattern({1, 2, 3, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 2, 10, 8}));
}

TEST(ConvTranspose, OneDimensionalSumsOverlappingTaps) {
  NodeRun conv{"ConvTranspose", 11, {}};
  // [1, 2] transposed with [1, 1, 1]: [1, 3, 3, 2]
  const auto y = conv.run({make<float>({1, 2}, {1, 1, 2}), make<float>({1, 1, 1}, {1, 1, 3})});
  expect_values(y[0], {1, 1, 4}, {1, 3, 3, 2});
}

TEST(ConvTranspose, RejectsChannelMismatchNamingTheNode) {
  NodeRun conv{"ConvTranspose", 11, {}};
  expect_error(
      [&] {
        conv.run({pattern({1, 3, 4, 4}), pattern({2, 2, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"ConvTranspose node 'node'", "3 channels"});
}

TEST(ConvTranspose, RejectsGroupThatDoesNotDivideChannels) {
  NodeRun conv{"ConvTranspose", 11, {{"group", int_attr(2)}}};
  expect_error(
      [&] {
        conv.run({pattern({1, 3, 4, 4}), pattern({3, 1, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"ConvTranspose node 'node'", "group 2"});
}

}  // namespace
}  // namespace inferlab::testing
