// hardswish_fusion: HardSwish spelled out (x * Clip(x + 3, 0, 6) / 6 in its
// exported orders, Mul by 1/6, Clip bounds as attributes before opset 11,
// x * HardSigmoid(x; 1/6, 0.5)) becomes one HardSwish — ONNX's from opset
// 14, ai.inferlab's below — that activation_fusion then takes into a Conv;
// an extra reader, a wrong constant or a broadcasting constant stops it.
#include "inferlab/optimizer/conv_fusion_passes.h"
#include "inferlab/optimizer/optimizer.h"
#include "optimizer/transformer_test_util.h"

namespace inferlab::testing {
namespace {

model::Attribute real(float v) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloat;
  a.f = v;
  return a;
}

// How the decomposed HardSwish is written.
struct Spelling {
  std::string label;
  bool three_first = false;      // Add(3, x)
  bool gate_first = false;       // Mul(clip, x)
  bool scale_before_x = false;   // x * (clip / 6)
  bool multiply_sixth = false;   // Mul by 1/6 instead of Div by 6
  bool clip_attributes = false;  // Clip-6 min/max attributes (opset 10)
};

const std::vector<Spelling>& spellings() {
  static const std::vector<Spelling> all{
      {"PaddleOCR: Add, Clip, Mul, Div"},
      {"operands swapped", true, true},
      {"Mul by 1/6", false, false, false, true},
      {"x * (clip / 6)", false, false, true},
      {"x * (clip * 1/6), swapped", true, true, true, true},
      {"Clip attributes", false, false, false, false, true},
  };
  return all;
}

struct Constants {
  float three = 3.0f, lo = 0.0f, hi = 6.0f, six = 6.0f, sixth = 1.0f / 6.0f;
};

// y = hardswish(x) written as `s` over x [2, 5, 3] (the value `x` may be
// produced by nodes the caller adds first).
void add_decomposed(GraphBuilder& g, const Spelling& s, const Constants& c = {}) {
  g.scalar("three", c.three);
  g.scalar("six", c.six);
  g.scalar("sixth", c.sixth);
  g.node("Add",
         s.three_first ? std::vector<std::string>{"three", "x"}
                       : std::vector<std::string>{"x", "three"},
         {"shifted"});
  if (s.clip_attributes) {
    g.node("Clip", {"shifted"}, {"gate"}, {{"min", real(c.lo)}, {"max", real(c.hi)}});
  } else {
    g.scalar("lo", c.lo);
    g.scalar("hi", c.hi);
    g.node("Clip", {"shifted", "lo", "hi"}, {"gate"});
  }
  const auto scale = [&](const std::string& in, const std::string& out) {
    if (s.multiply_sixth) {
      g.node("Mul", {"sixth", in}, {out});
    } else {
      g.node("Div", {in, "six"}, {out});
    }
  };
  const auto times_x = [&](const std::string& in, const std::string& out) {
    g.node("Mul",
           s.gate_first ? std::vector<std::string>{in, "x"} : std::vector<std::string>{"x", in},
           {out});
  };
  if (s.scale_before_x) {
    scale("gate", "scaled");
    times_x("scaled", "y");
  } else {
    times_x("gate", "product");
    scale("product", "y");
  }
}

GraphBuilder decomposed(int64_t opset, const Spelling& s, const Constants& c = {}) {
  GraphBuilder g(opset);
  g.input("x", {2, 5, 3});
  add_decomposed(g, s, c);
  g.output("y");
  return g;
}

// Covers both clamps: x + 3 below 0 and above 6.
std::map<std::string, Tensor> inputs() { return {{"x", random_float_tensor({2, 5, 3}, 4, -8, 8)}}; }

optimizer::PassStats fuse(model::Model& model) {
  auto pass = optimizer::make_hardswish_fusion_pass();
  return run_pass_and_compare(*pass, model, inputs());
}

TEST(HardSwishFusion, FusesEverySpellingIntoOneNode) {
  for (const Spelling& s : spellings()) {
    GraphBuilder g = decomposed(s.clip_attributes ? 10 : 11, s);
    const optimizer::PassStats stats = fuse(g.model);
    EXPECT_TRUE(stats.changed()) << s.label;
    ASSERT_EQ(g.graph().nodes.size(), 1u) << s.label;
    const model::Node& node = g.graph().nodes[0];
    EXPECT_EQ(node.op_type, "HardSwish") << s.label;
    EXPECT_EQ(node.inputs, std::vector<std::string>{"x"}) << s.label;
    EXPECT_EQ(node.outputs[0], "y") << s.label;
    EXPECT_EQ(node.attributes.at("fused_nodes").strings.size(), 4u) << s.label;
    EXPECT_TRUE(g.graph().initializers.empty()) << s.label;
  }
}

TEST(HardSwishFusion, LogsTheSpellingItFound) {
  GraphBuilder g = decomposed(11, spellings()[0]);
  EXPECT_EQ(fuse(g.model).changes.at("fused Add+Clip+Mul+Div (as HardSwish)"), 1);
  GraphBuilder h = decomposed(11, spellings()[3]);
  EXPECT_EQ(fuse(h.model).changes.at("fused Add+Clip+Div+Mul (as HardSwish)"), 1);
}

TEST(HardSwishFusion, UsesOnnxHardSwishFromOpset14AndInferLabsBelow) {
  GraphBuilder onnx = decomposed(14, spellings()[0]);
  fuse(onnx.model);
  ASSERT_EQ(onnx.graph().nodes.size(), 1u);
  EXPECT_EQ(onnx.graph().nodes[0].domain, "");
  EXPECT_EQ(onnx.model.opset_of("ai.inferlab"), 0);

  GraphBuilder older = decomposed(13, spellings()[0]);
  fuse(older.model);
  ASSERT_EQ(older.graph().nodes.size(), 1u);
  EXPECT_EQ(older.graph().nodes[0].domain, "ai.inferlab");
  EXPECT_EQ(older.model.opset_of("ai.inferlab"), 1);
}

TEST(HardSwishFusion, FusesXTimesHardSigmoidOfX) {
  for (bool gate_first : {false, true}) {
    GraphBuilder g(14);
    g.input("x", {2, 5, 3});
    g.node("HardSigmoid", {"x"}, {"gate"}, {{"alpha", real(1.0f / 6.0f)}, {"beta", real(0.5f)}});
    g.node(
        "Mul",
        gate_first ? std::vector<std::string>{"gate", "x"} : std::vector<std::string>{"x", "gate"},
        {"y"});
    g.output("y");
    EXPECT_EQ(fuse(g.model).changes.at("fused HardSigmoid+Mul (as HardSwish)"), 1);
    ASSERT_EQ(g.graph().nodes.size(), 1u);
    EXPECT_EQ(g.graph().nodes[0].op_type, "HardSwish");
  }
}

TEST(HardSwishFusion, FusesWhenXHasOtherReaders) {
  GraphBuilder g = decomposed(14, spellings()[0]);
  g.node("Relu", {"x"}, {"other"});
  g.output("other");
  EXPECT_TRUE(fuse(g.model).changed());
  EXPECT_EQ(count_ops(g.model, "HardSwish"), 1);
}

TEST(HardSwishFusion, DoesNotFireWhenAnIntermediateHasAnotherReader) {
  for (const char* intermediate : {"shifted", "gate", "product"}) {
    GraphBuilder g = decomposed(14, spellings()[0]);
    g.output(intermediate);
    EXPECT_FALSE(fuse(g.model).changed()) << intermediate;
    GraphBuilder h = decomposed(14, spellings()[0]);
    h.node("Neg", {intermediate}, {"neg"});
    h.output("neg");
    EXPECT_FALSE(fuse(h.model).changed()) << intermediate;
  }
}

TEST(HardSwishFusion, DoesNotFireWithAWrongConstant) {
  std::vector<std::pair<std::string, Constants>> wrong;
  Constants c;
  c.three = 3.001f;
  wrong.emplace_back("three", c);
  c = {};
  c.lo = -0.0001f;
  wrong.emplace_back("clip min", c);
  c = {};
  c.hi = 6.5f;
  wrong.emplace_back("clip max", c);
  c = {};
  c.six = 6.0001f;
  wrong.emplace_back("six", c);
  for (const auto& [label, constants] : wrong) {
    GraphBuilder g = decomposed(14, spellings()[0], constants);
    EXPECT_FALSE(fuse(g.model).changed()) << label;
  }
  // 0.16666 is 1/6 only within 4e-5: more than FP32 rounding.
  c = {};
  c.sixth = 0.16666f;
  GraphBuilder g = decomposed(14, spellings()[2], c);
  EXPECT_FALSE(fuse(g.model).changed());
  GraphBuilder h(14);
  h.input("x", {2, 5, 3});
  h.node("HardSigmoid", {"x"}, {"gate"});  // ONNX's default alpha 0.2
  h.node("Mul", {"x", "gate"}, {"y"});
  h.output("y");
  EXPECT_FALSE(fuse(h.model).changed());
}

TEST(HardSwishFusion, DoesNotFireWhenTheProductIsNotWithX) {
  GraphBuilder g(14);
  g.input("x", {2, 5, 3});
  g.input("z", {2, 5, 3});
  g.scalar("three", 3.0f);
  g.scalar("lo", 0.0f);
  g.scalar("hi", 6.0f);
  g.scalar("six", 6.0f);
  g.node("Add", {"x", "three"}, {"shifted"});
  g.node("Clip", {"shifted", "lo", "hi"}, {"gate"});
  g.node("Mul", {"z", "gate"}, {"product"});
  g.node("Div", {"product", "six"}, {"y"});
  g.output("y");
  auto pass = optimizer::make_hardswish_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
}

TEST(HardSwishFusion, DoesNotFireWhenAConstantWouldBroadcastX) {
  // x [5, 3] + 3 of shape [1, 1, 1] is [1, 5, 3]: not HardSwish(x).
  GraphBuilder g(14);
  g.input("x", {5, 3});
  add_decomposed(g, spellings()[0]);
  g.constant("three", Tensor::from_vector<float>({3.0f}, Shape{1, 1, 1}));
  g.output("y");
  auto pass = optimizer::make_hardswish_fusion_pass();
  EXPECT_FALSE(run_pass(*pass, g.model).changed());
  // Of shape [1] it keeps x's shape.
  GraphBuilder h(14);
  h.input("x", {2, 5, 3});
  add_decomposed(h, spellings()[0]);
  h.constant("three", Tensor::from_vector<float>({3.0f}, Shape{1}));
  h.output("y");
  EXPECT_TRUE(fuse(h.model).changed());
}

// Conv -> decomposed HardSwish through the whole level-2 pipeline: one
// FusedConv with activation HardSwish, at opset 11 (ai.inferlab::HardSwish
// in between) and at opset 14.
TEST(HardSwishFusion, ThenActivationFusionTakesItIntoTheConv) {
  for (int64_t opset : {11, 14}) {
    GraphBuilder g(opset);
    g.input("in", {1, 3, 6, 6});
    g.constant("w", random_float_tensor({4, 3, 3, 3}, 7));
    g.constant("b", random_float_tensor({4}, 8));
    g.node("Conv", {"in", "w", "b"}, {"x"}, {{"pads", ints({1, 1, 1, 1})}});
    add_decomposed(g, spellings()[0]);
    g.output("y");
    const std::map<std::string, Tensor> in{{"in", random_float_tensor({1, 3, 6, 6}, 9, -4, 4)}};
    const auto before = execute(g.model, in);
    optimizer::OptimizeOptions options;
    options.level = 2;
    const optimizer::OptimizationLog log =
        optimizer::optimize(g.model, options, kernels::OpRegistry::reference());
    const auto after = execute(g.model, in);
    EXPECT_LE(relative_error(after.at("y"), before.at("y")), 1e-5) << opset;
    ASSERT_EQ(g.graph().nodes.size(), 1u) << opset;
    const model::Node& fused = g.graph().nodes[0];
    EXPECT_EQ(fused.domain + "::" + fused.op_type, "ai.inferlab::FusedConv");
    EXPECT_EQ(fused.attributes.at("activation").s, "HardSwish");
    EXPECT_EQ(fused.attributes.at("fused_nodes").strings.size(), 5u);
    EXPECT_EQ(log.op_counts_after.count("ai.inferlab::HardSwish"), 0u);
  }
}

}  // namespace
}  // namespace inferlab::testing
