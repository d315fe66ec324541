// Resize and Upsample against values from ONNX's reference implementation.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Resize, NearestUpsampleWithScales) {
  NodeRun resize{"Resize", 13, {{"mode", string_attr("nearest")}}};
  const auto out = resize.run(
      {make<float>({1, 2, 3, 4}, {1, 1, 2, 2}), std::nullopt, make<float>({1, 1, 2, 1.5f}, {4})});
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 4, 3}));
  EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4, 3, 3, 4}));
}

TEST(Resize, LinearHalfPixelUpsample) {
  // onnx test_resize_upsample_scales_linear: 2x2 -> 4x4.
  NodeRun resize{"Resize", 13, {{"mode", string_attr("linear")}}};
  const auto out = resize.run(
      {make<float>({1, 2, 3, 4}, {1, 1, 2, 2}), std::nullopt, make<float>({1, 1, 2, 2}, {4})});
  const std::vector<float> expected = {1,    1.25f, 1.75f, 2,    1.5f, 1.75f, 2.25f, 2.5f,
                                       2.5f, 2.75f, 3.25f, 3.5f, 3,    3.25f, 3.75f, 4};
  EXPECT_EQ(values_of<float>(out[0]), expected);
}

TEST(Resize, SizesAndIntegerNearest) {
  NodeRun resize{"Resize",
                 13,
                 {{"mode", string_attr("nearest")},
                  {"coordinate_transformation_mode", string_attr("asymmetric")},
                  {"nearest_mode", string_attr("floor")}}};
  const auto out = resize.run(
      {make<int64_t>({10, 20}, {1, 2}), std::nullopt, std::nullopt, make<int64_t>({1, 4}, {2})});
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{10, 10, 20, 20}));
}

TEST(Resize, AxesAndNotLargerPolicyInOpset18) {
  NodeRun resize{
      "Resize",
      18,
      {{"axes", ints_attr({2, 3})}, {"keep_aspect_ratio_policy", string_attr("not_larger")}}};
  const auto out = resize.run({Tensor(DataType::kFloat32, {1, 1, 2, 4}), std::nullopt, std::nullopt,
                               make<int64_t>({4, 4}, {2})});
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 2, 4}));
}

TEST(Resize, RejectsAntialias) {
  NodeRun resize{"Resize", 18, {{"antialias", int_attr(1)}}};
  expect_error(
      [&] {
        resize.run({Tensor(DataType::kFloat32, {1, 1, 2, 2}), std::nullopt,
                    make<float>({1, 1, 2, 2}, {4})});
      },
      ErrorCode::kUnsupported, {"Resize node 'node'", "antialias"});
}

TEST(Upsample, ScalesAttributeInOpset7) {
  NodeRun upsample{"Upsample", 7, {{"scales", floats_attr({1, 3})}}};
  const auto out = upsample.run({make<int32_t>({1, 2}, {1, 2})});
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{1, 1, 1, 2, 2, 2}));
}

}  // namespace
}  // namespace inferlab::testing
