// transpose_chain and reshape_chain.
#include "inferlab/optimizer/transformer_passes.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

TEST(TransposeChain, RemovesInversePairAndMergesOthers) {
  GraphBuilder g(13);
  g.input("x", {2, 3, 4});
  g.node("Transpose", {"x"}, {"t1"}, {{"perm", ints({1, 0, 2})}});
  g.node("Transpose", {"t1"}, {"t2"}, {{"perm", ints({1, 0, 2})}});
  g.node("Relu", {"t2"}, {"r"});
  g.node("Transpose", {"r"}, {"t3"}, {{"perm", ints({2, 0, 1})}});
  g.node("Transpose", {"t3"}, {"y"}, {{"perm", ints({0, 2, 1})}});
  g.output("y");
  auto pass = optimizer::make_transpose_chain_pass();
  const auto stats =
      run_pass_and_compare(*pass, g.model, {{"x", random_float_tensor({2, 3, 4}, 1)}});
  EXPECT_EQ(stats.changes.at("removed Transpose pair"), 1);
  EXPECT_EQ(stats.changes.at("merged Transpose chain"), 1);
  EXPECT_EQ(count_ops(g.model, "Transpose"), 1);
}

TEST(TransposeChain, KeepsTheFirstTransposeWhenItHasAnotherReader) {
  GraphBuilder g(13);
  g.input("x", {2, 3});
  g.node("Transpose", {"x"}, {"t1"}, {{"perm", ints({1, 0})}});
  g.node("Transpose", {"t1"}, {"t2"}, {{"perm", ints({1, 0})}});
  g.node("Add", {"t2", "x"}, {"y"});
  g.output("y");
  g.output("t1");
  auto pass = optimizer::make_transpose_chain_pass();
  run_pass_and_compare(*pass, g.model, {{"x", random_float_tensor({2, 3}, 1)}});
  EXPECT_EQ(count_ops(g.model, "Transpose"), 1);
}

TEST(ReshapeChain, CollapsesAChainWithAStaticShape) {
  GraphBuilder g(13);
  g.input("x", {2, 3, 4});
  g.constant("s1", Tensor::from_vector<int64_t>({6, 4}, Shape{2}));
  g.node("Reshape", {"x", "s1"}, {"r1"});
  g.constant("axes", Tensor::from_vector<int64_t>({0}, Shape{1}));
  g.node("Unsqueeze", {"r1", "axes"}, {"u"});
  g.node("Flatten", {"u"}, {"y"}, {{"axis", one_int(2)}});
  g.output("y");
  auto pass = optimizer::make_reshape_chain_pass();
  for (int i = 0; i < 2; ++i) {
    run_pass_and_compare(*pass, g.model, {{"x", random_float_tensor({2, 3, 4}, 1)}});
  }
  EXPECT_EQ(g.graph().nodes.size(), 1u);
}

TEST(ReshapeChain, DoesNotFireWithoutAStaticShape) {
  GraphBuilder g(13);
  g.input("x", {2, 3, 4});
  g.input("s1", {2});
  g.graph().inputs.back().dtype = DataType::kInt64;
  g.node("Reshape", {"x", "s1"}, {"r1"});
  g.constant("axes", Tensor::from_vector<int64_t>({0}, Shape{1}));
  g.node("Unsqueeze", {"r1", "axes"}, {"y"});
  g.output("y");
  auto pass = optimizer::make_reshape_chain_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

}  // namespace
}  // namespace inferlab::testing
