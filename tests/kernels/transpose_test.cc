// Transpose, DepthToSpace and SpaceToDepth against numpy results.
#include "kernels/tensor_ops_harness.h"

namespace inferlab::testing {
namespace {

TEST(Transpose, DefaultReversesAxes) {
  const auto out = NodeRun{"Transpose", 13}.run({make<int64_t>({0, 1, 2, 3, 4, 5}, {2, 3})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(values_of<int64_t>(out[0]), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, PermutesThreeDims) {
  // np.arange(24).reshape(2,3,4).transpose(1,2,0)
  std::vector<float> input(24);
  for (int i = 0; i < 24; ++i) input[static_cast<size_t>(i)] = static_cast<float>(i);
  NodeRun transpose{"Transpose", 13, {{"perm", ints_attr({1, 2, 0})}}};
  const auto out = transpose.run({make<float>(input, {2, 3, 4})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(values_of<float>(out[0])[0], 0.0f);
  EXPECT_EQ(values_of<float>(out[0])[1], 12.0f);
  EXPECT_EQ(values_of<float>(out[0])[2], 1.0f);
  EXPECT_EQ(values_of<float>(out[0])[23], 23.0f);
}

TEST(Transpose, HandlesStringsBoolsAndZeroSize) {
  NodeRun transpose{"Transpose", 13};
  const auto strings = transpose.run({make<std::string>({"a", "b", "c", "d"}, {2, 2})});
  EXPECT_EQ(values_of<std::string>(strings[0]), (std::vector<std::string>{"a", "c", "b", "d"}));
  const auto bools = transpose.run({make<bool>({true, false}, {1, 2})});
  EXPECT_EQ(values_of<bool>(bools[0]), (std::vector<bool>{true, false}));
  EXPECT_EQ(transpose.run({Tensor(DataType::kFloat32, {0, 3})})[0].shape(), (Shape{3, 0}));
}

TEST(Transpose, RejectsRepeatedPerm) {
  NodeRun transpose{"Transpose", 13, {{"perm", ints_attr({0, 0})}}};
  expect_error(
      [&] {
        transpose.run({Tensor(DataType::kFloat32, {2, 2})});
      },
      ErrorCode::kInvalidModel, {"Transpose node 'node'", "repeats"});
}

TEST(DepthToSpace, MatchesDcrAndCrdModes) {
  std::vector<float> input(8);
  for (int i = 0; i < 8; ++i) input[static_cast<size_t>(i)] = static_cast<float>(i);
  // x = arange(8).reshape(1,4,1,2), blocksize 2.
  const Tensor data = make<float>(input, {1, 4, 1, 2});
  NodeRun dcr{"DepthToSpace", 13, {{"blocksize", int_attr(2)}}};
  EXPECT_EQ(values_of<float>(dcr.run({data})[0]), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  NodeRun crd{"DepthToSpace", 13, {{"blocksize", int_attr(2)}, {"mode", string_attr("CRD")}}};
  EXPECT_EQ(values_of<float>(crd.run({data})[0]), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(SpaceToDepth, InvertsDepthToSpace) {
  std::vector<int32_t> input(16);
  for (int i = 0; i < 16; ++i) input[static_cast<size_t>(i)] = i;
  const Tensor data = make<int32_t>(input, {1, 1, 4, 4});
  const auto depth = NodeRun{"SpaceToDepth", 13, {{"blocksize", int_attr(2)}}}.run({data});
  EXPECT_EQ(depth[0].shape(), (Shape{1, 4, 2, 2}));
  EXPECT_EQ(values_of<int32_t>(depth[0])[0], 0);
  EXPECT_EQ(values_of<int32_t>(depth[0])[1], 2);
  const auto back = NodeRun{"DepthToSpace", 13, {{"blocksize", int_attr(2)}}}.run({depth[0]});
  EXPECT_TRUE(back[0].equals(data));
}

}  // namespace
}  // namespace inferlab::testing
