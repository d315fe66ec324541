// Conv: values against torch, awkward geometries against a direct loop, and
// errors that name the node.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

// Direct N-d... here 2-D convolution with explicit pads, for cross-checking im2col + GEMM.
Tensor direct_conv2d(const Tensor& x, const Tensor& w, const Tensor* b, int64_t group,
                     Shape strides, Shape dilations, Shape pads) {
  const int64_t n_batch = x.dim(0), c_in = x.dim(1), h = x.dim(2), wd = x.dim(3);
  const int64_t m_out = w.dim(0), cg = w.dim(1), kh = w.dim(2), kw = w.dim(3);
  const int64_t oh = (h + pads[0] + pads[2] - ((kh - 1) * dilations[0] + 1)) / strides[0] + 1;
  const int64_t ow = (wd + pads[1] + pads[3] - ((kw - 1) * dilations[1] + 1)) / strides[1] + 1;
  Tensor y(DataType::kFloat32, {n_batch, m_out, oh, ow});
  const int64_t mg = m_out / group;
  for (int64_t n = 0; n < n_batch; ++n)
    for (int64_t m = 0; m < m_out; ++m)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox) {
          double sum = b ? b->data<float>()[m] : 0.0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * strides[0] - pads[0] + ky * dilations[0];
                const int64_t ix = ox * strides[1] - pads[1] + kx * dilations[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                const int64_t ci = (m / mg) * cg + c;
                sum += double(x.data<float>()[((n * c_in + ci) * h + iy) * wd + ix]) *
                       w.data<float>()[((m * cg + c) * kh + ky) * kw + kx];
              }
          y.data<float>()[((n * m_out + m) * oh + oy) * ow + ox] = static_cast<float>(sum);
        }
  return y;
}

TEST(Conv, MatchesTorchWithGroupsStridesDilationsAndAsymmetricPads) {
  NodeRun conv{"Conv",
               11,
               {{"group", int_attr(2)},
                {"strides", ints_attr({2, 1})},
                {"dilations", ints_attr({1, 2})},
                {"pads", ints_attr({1, 0, 0, 2})}}};
  const auto y = conv.run({pattern({1, 4, 5, 6}), pattern({6, 2, 3, 2}, 3), pattern({6}, 5)});
  expect_values(
      y[0], {1, 6, 2, 6},
      {0.078125,  0.1875,    -2.09375,  1.203125,  -1.3125,   0.265625,  -2.203125, 0.328125,
       -0.0625,   -0.1875,   -0.765625, 0.59375,   -1.125,    0.765625,  0.53125,   1.09375,
       0.53125,   -0.71875,  0.609375,  0.765625,  2.25,      -0.515625, 0.703125,  -0.71875,
       -2.328125, -0.515625, -0.5625,   -0.078125, -0.546875, -1.96875,  -0.03125,  -2.25,
       1.109375,  0.21875,   -0.484375, -2.03125,  1.71875,   -1.59375,  -0.65625,  0.28125,
       0.5,       0.5,       0.484375,  -1.1875,   0.59375,   0.78125,   -0.25,     1,
       2.734375,  -0.921875, 0.203125,  1.0625,    1.328125,  1.421875,  0.25,      -0.078125,
       -0.671875, 1.390625,  2.21875,   0.953125,  -0.5,      -2.640625, 0.53125,   -1.34375,
       0.03125,   0.21875,   1.34375,   -2.15625,  -0.609375, -1.1875,   0.96875,   -0.15625});
}

struct ConvCase {
  Shape x, w;
  int64_t group;
  Shape strides, dilations, pads;
  bool bias;
};

TEST(Conv, MatchesDirectLoopOnAwkwardShapes) {
  const std::vector<ConvCase> cases = {
      {{2, 3, 7, 5}, {5, 3, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},   // pointwise, batch 2
      {{1, 4, 9, 9}, {4, 1, 3, 3}, 4, {2, 2}, {1, 1}, {1, 1, 1, 1}, true},   // depthwise
      {{1, 6, 8, 7}, {9, 2, 3, 2}, 3, {1, 2}, {2, 1}, {0, 1, 2, 0}, false},  // groups, dilation
      {{3, 2, 5, 5}, {3, 2, 5, 5}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},   // kernel = input
      {{1, 3, 6, 6}, {2, 3, 1, 1}, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}, false},  // strided 1x1
      {{1, 1, 13, 17}, {3, 1, 4, 3}, 1, {3, 2}, {1, 1}, {2, 0, 1, 3}, true},
  };
  for (const ConvCase& c : cases) {
    NodeRun conv{"Conv",
                 11,
                 {{"group", int_attr(c.group)},
                  {"strides", ints_attr(c.strides)},
                  {"dilations", ints_attr(c.dilations)},
                  {"pads", ints_attr(c.pads)}}};
    const Tensor x = pattern(c.x, 1, 19);
    const Tensor w = pattern(c.w, 4, 13);
    const Tensor b = pattern({c.w[0]}, 2);
    const auto y = c.bias ? conv.run({x, w, b}) : conv.run({x, w, std::nullopt});
    expect_close(
        y[0], direct_conv2d(x, w, c.bias ? &b : nullptr, c.group, c.strides, c.dilations, c.pads));
  }
}

TEST(Conv, Handles1dAnd3dAndDouble) {
  NodeRun conv1d{"Conv", 13, {{"pads", ints_attr({1, 1})}}};
  // x = [1, 2, 3], w = [1, 1, 1] padded: [3, 6, 5]
  auto y = conv1d.run({make<float>({1, 2, 3}, {1, 1, 3}), make<float>({1, 1, 1}, {1, 1, 3})});
  expect_values(y[0], {1, 1, 3}, {3, 6, 5});
  NodeRun conv3d{"Conv", 13, {}};
  y = conv3d.run({pattern({1, 1, 2, 2, 2}, 0, 17, DataType::kFloat64),
                  pattern({1, 1, 2, 2, 2}, 0, 17, DataType::kFloat64)});
  double sum_squares = 0;
  for (int i = 0; i < 8; ++i) sum_squares += std::pow(((i * 7) % 17) / 8.0 - 1.0, 2);
  expect_values(y[0], {1, 1, 1, 1, 1}, {sum_squares});
}

TEST(Conv, AutoPadSameUpperKeepsCeilOfInputOverStride) {
  NodeRun conv{
      "Conv", 11, {{"auto_pad", string_attr("SAME_UPPER")}, {"strides", ints_attr({2, 2})}}};
  const auto y = conv.run({pattern({1, 1, 5, 6}), pattern({1, 1, 3, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 3, 3}));
}

TEST(Conv, RejectsChannelMismatchNamingTheNode) {
  NodeRun conv{"Conv", 11, {}};
  expect_error(
      [&] {
        conv.run({pattern({1, 3, 4, 4}), pattern({2, 2, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"Conv node 'node'", "3 channels"});
}

TEST(Conv, RejectsWrongRankNamingTheNode) {
  NodeRun conv{"Conv", 11, {}};
  expect_error(
      [&] {
        conv.run({pattern({3, 4}), pattern({2, 3})});
      },
      ErrorCode::kInvalidArgument, {"Conv node 'node'", "rank"});
  expect_error(
      [&] {
        conv.run({pattern({1, 3, 4, 4}), pattern({2, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"Conv node 'node'", "rank"});
}

TEST(Conv, RejectsGroupThatDoesNotDivideChannels) {
  NodeRun conv{"Conv", 11, {{"group", int_attr(2)}}};
  expect_error(
      [&] {
        conv.run({pattern({1, 3, 4, 4}), pattern({2, 1, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"Conv node 'node'", "group 2"});
}

TEST(Conv, RejectsKernelLargerThanInput) {
  NodeRun conv{"Conv", 11, {}};
  expect_error(
      [&] {
        conv.run({pattern({1, 1, 2, 2}), pattern({1, 1, 3, 3})});
      },
      ErrorCode::kInvalidArgument, {"Conv node 'node'", "kernel"});
}

}  // namespace
}  // namespace inferlab::testing
