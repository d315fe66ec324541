// attention_fusion: the torch.nn.MultiheadAttention export (sequence-first,
// packed QKV, optional mask) -> com.microsoft Attention, checked by running
// both graphs (this also checks the Attention kernel against the reference
// chain); and not when an intermediate has a second reader or the weights
// are not constant.
#include "inferlab/optimizer/transformer_passes.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

constexpr int64_t kSeq = 5, kBatch = 2, kHeads = 3, kHead = 4, kHidden = kHeads * kHead;

GraphBuilder attention_block(bool mask, bool constant_weights = true) {
  GraphBuilder g(13);
  g.input("x", {kSeq, kBatch, 6});
  if (constant_weights) {
    g.constant("w", random_float_tensor({6, 3 * kHidden}, 11));
  } else {
    g.input("w", {6, 3 * kHidden});
  }
  g.constant("b", random_float_tensor({3 * kHidden}, 12));
  g.node("MatMul", {"x", "w"}, {"p"});
  g.node("Add", {"b", "p"}, {"qkv"});
  g.constant("axis", Tensor::from_vector<int64_t>({-1}, Shape{1}));
  g.constant("heads", Tensor::from_vector<int64_t>({kSeq, kBatch * kHeads, kHead}, Shape{3}));
  const char* parts[] = {"q", "k", "v"};
  for (int64_t i = 0; i < 3; ++i) {
    const std::string n = parts[i];
    g.constant(n + "_start", Tensor::from_vector<int64_t>({i * kHidden}, Shape{1}));
    g.constant(n + "_end", Tensor::from_vector<int64_t>({(i + 1) * kHidden}, Shape{1}));
    g.node("Slice", {"qkv", n + "_start", n + "_end", "axis"}, {n + "_s"});
    g.node("Reshape", {n + "_s", "heads"}, {n + "_r"});
    g.node(
        "Transpose", {n + "_r"}, {n + "_t"},
        {{"perm", ints(i == 1 ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{1, 0, 2})}});
  }
  g.scalar("root", 2.0f);
  g.node("Div", {"q_t", "root"}, {"q_scaled"});
  g.node("MatMul", {"q_scaled", "k_t"}, {"scores"});
  std::string logits = "scores";
  if (mask) {
    g.constant("mask", random_float_tensor({kSeq, kSeq}, 13, -2, 0));
    g.node("Add", {"scores", "mask"}, {"masked"});
    logits = "masked";
  }
  g.node("Softmax", {logits}, {"probs"}, {{"axis", one_int(-1)}});
  g.node("MatMul", {"probs", "v_t"}, {"ctx"});
  g.node("Transpose", {"ctx"}, {"ctx_t"}, {{"perm", ints({1, 0, 2})}});
  g.constant("merged", Tensor::from_vector<int64_t>({kSeq * kBatch, kHidden}, Shape{2}));
  g.node("Reshape", {"ctx_t", "merged"}, {"y"});
  g.output("y");
  return g;
}

std::map<std::string, Tensor> inputs(bool with_w = false) {
  std::map<std::string, Tensor> in{{"x", random_float_tensor({kSeq, kBatch, 6}, 1)}};
  if (with_w) in["w"] = random_float_tensor({6, 3 * kHidden}, 11);
  return in;
}

TEST(AttentionFusion, FusesTheBlockWithAndWithoutMask) {
  for (bool mask : {false, true}) {
    GraphBuilder g = attention_block(mask);
    auto pass = optimizer::make_attention_fusion_pass();
    const auto stats = run_pass_and_compare(*pass, g.model, inputs());
    EXPECT_EQ(stats.changes.at("fused Attention"), 1);
    EXPECT_EQ(count_ops(g.model, "Attention"), 1);
    EXPECT_EQ(count_ops(g.model, "Softmax"), 0);
    EXPECT_EQ(g.graph().nodes.size(), 4u);  // Transpose, Attention, Transpose, Reshape
  }
}

TEST(AttentionFusion, DoesNotFireWhenScoresHaveASecondReader) {
  GraphBuilder g = attention_block(false);
  g.output("scores");
  auto pass = optimizer::make_attention_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(AttentionFusion, DoesNotFireWithNonConstantWeights) {
  GraphBuilder g = attention_block(false, false);
  auto pass = optimizer::make_attention_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

}  // namespace
}  // namespace inferlab::testing
