// Pad: the three modes, negative pads, opset forms and axes (opset 18).
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Pad, ConstantModeWithValueInput) {
  NodeRun pad{"Pad", 13};
  const auto out = pad.run({make<int32_t>({1, 2}, {1, 2}), make<int64_t>({0, 1, 1, 0}, {4}),
                            Tensor::scalar<int32_t>(9)});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{9, 1, 2, 9, 9, 9}));
}

TEST(Pad, ReflectAndEdgeMatchNumpy) {
  const Tensor data = make<float>({1, 2, 3}, {3});
  const Tensor pads = make<int64_t>({2, 3}, {2});
  // np.pad([1,2,3], (2,3), 'reflect') and 'edge'
  NodeRun reflect{"Pad", 13, {{"mode", string_attr("reflect")}}};
  EXPECT_EQ(values_of<float>(reflect.run({data, pads})[0]),
            (std::vector<float>{3, 2, 1, 2, 3, 2, 1, 2}));
  NodeRun edge{"Pad", 13, {{"mode", string_attr("edge")}}};
  EXPECT_EQ(values_of<float>(edge.run({data, pads})[0]),
            (std::vector<float>{1, 1, 1, 2, 3, 3, 3, 3}));
}

TEST(Pad, NegativePadsCropAndAttributeFormWorks) {
  NodeRun pad{"Pad", 2 + 7, {{"pads", ints_attr({-1, 1})}, {"value", float_attr(7)}}};
  pad.opset = 9;
  EXPECT_EQ(values_of<float>(pad.run({make<float>({1, 2, 3}, {3})})[0]),
            (std::vector<float>{2, 3, 7}));
}

TEST(Pad, AxesInputInOpset18) {
  NodeRun pad{"Pad", 18};
  const auto out = pad.run({make<int64_t>({1, 2, 3, 4}, {2, 2}), make<int64_t>({1, 0}, {2}),
                            std::nullopt, make<int64_t>({-1}, {1})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 1, 2, 0, 3, 4}));
}

TEST(Pad, RejectsWrongPadCount) {
  expect_error(
      [] {
        NodeRun{"Pad", 13}.run({make<float>({1}, {1}), make<int64_t>({1}, {1})});
      },
      ErrorCode::kInvalidArgument, {"Pad node 'node'", "pads has 1 entries"});
}

}  // namespace
}  // namespace inferlab::testing
