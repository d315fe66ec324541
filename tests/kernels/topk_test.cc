// TopK (ties by lower index, smallest, k attribute form) and NonMaxSuppression.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(TopK, LargestWithTiesByIndex) {
  NodeRun topk{"TopK", 13};
  const auto out = topk.run({make<float>({1, 3, 3, 2, 3}, {5}), make<int64_t>({3}, {1})}, 2);
  EXPECT_EQ(values_of<float>(out[0]), (std::vector<float>{3, 3, 3}));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{1, 2, 4}));
}

TEST(TopK, SmallestAlongAxisZero) {
  NodeRun topk{"TopK", 13, {{"axis", int_attr(0)}, {"largest", int_attr(0)}}};
  const auto out =
      topk.run({make<int32_t>({5, 1, 2, 6, 0, 7}, {3, 2}), make<int64_t>({2}, {1})}, 2);
  EXPECT_EQ(values_of<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 2, 6}));
  EXPECT_EQ(values_of<int64_t>(out[1]), (std::vector<int64_t>{2, 0, 1, 1}));
}

TEST(TopK, AttributeFormAndBadK) {
  NodeRun topk{"TopK", 9, {{"k", int_attr(1)}}};
  EXPECT_EQ(values_of<double>(topk.run({make<double>({1, 4, 2}, {3})}, 2)[0]),
            (std::vector<double>{4}));
  expect_error(
      [] {
        NodeRun{"TopK", 13}.run({make<float>({1}, {1}), make<int64_t>({2}, {1})}, 2);
      },
      ErrorCode::kInvalidArgument, {"TopK node 'node'", "k = 2"});
}

TEST(NonMaxSuppression, SuppressesOverlapsPerClass) {
  // Two overlapping boxes and one apart; IoU(0,1) = 0.81 > 0.5.
  const Tensor boxes = make<float>({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, 10, 1, 11}, {1, 3, 4});
  const Tensor scores = make<float>({0.9f, 0.8f, 0.7f}, {1, 1, 3});
  NodeRun nms{"NonMaxSuppression", 11};
  const auto out = nms.run(
      {boxes, scores, make<int64_t>({3}, {1}), make<float>({0.5f}, {1}), make<float>({0.0f}, {1})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
  const auto none = nms.run({boxes, scores});
  EXPECT_EQ(none[0].shape(), (Shape{0, 3}));
}

}  // namespace
}  // namespace inferlab::testing
