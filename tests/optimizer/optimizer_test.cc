// The pass manager: level 0 changes nothing, level 1 runs to a fixed point
// and logs each pass once, and on the zoo models level 1 (and the exported
// level-3 file) computes what level 0 computes at FP32 tolerance.
#include "inferlab/optimizer/optimizer.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "basic_pass_test_util.h"
#include "inferlab/core/npy.h"
#include "inferlab/kernels/cpu/isa.h"
#include "inferlab/model/onnx_import.h"
#include "inferlab/optimizer/onnx_export.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

using basic_test::TestModel;

// x -> Identity -> Identity -> Add(c1 + c2) -> y, plus a dead Neg.
TestModel make_cluttered_model() {
  TestModel test;
  test.input("x", {2});
  test.output("y");
  test.constant("c1", Tensor::from_vector<float>({1, 2}, {2}));
  test.constant("c2", Tensor::from_vector<float>({3, 4}, {2}));
  test.node("id1", "Identity", {"x"}, {"a"});
  test.node("id2", "Identity", {"a"}, {"b"});
  test.node("sum", "Add", {"c1", "c2"}, {"c"});
  test.node("add", "Add", {"b", "c"}, {"y"});
  test.node("dead", "Neg", {"b"}, {"unused"});
  return test;
}

const PassLogEntry* find_entry(const OptimizationLog& log, const std::string& pass) {
  for (const PassLogEntry& entry : log.passes) {
    if (entry.pass == pass) return &entry;
  }
  return nullptr;
}

TEST(Optimizer, LevelZeroChangesNothing) {
  TestModel test = make_cluttered_model();
  const OptimizationLog log =
      optimize(test.model, OptimizeOptions{0, {}}, kernels::OpRegistry::reference());
  EXPECT_TRUE(log.passes.empty());
  EXPECT_EQ(log.nodes_before, 5);
  EXPECT_EQ(log.nodes_after, 5);
  EXPECT_EQ(test.graph().nodes.size(), 5u);
  EXPECT_EQ(log.op_counts_after, log.op_counts_before);
}

TEST(Optimizer, LevelOneRunsToAFixedPointAndLogsEachPassOnce) {
  TestModel test = make_cluttered_model();
  const OptimizationLog log =
      optimize(test.model, OptimizeOptions{1, {}}, kernels::OpRegistry::reference());
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].inputs[0], "x");
  EXPECT_EQ(log.nodes_before, 5);
  EXPECT_EQ(log.nodes_after, 1);
  EXPECT_EQ(log.op_counts_before.at("Identity"), 2);
  EXPECT_EQ(log.op_counts_after.count("Identity"), 0u);
  const PassLogEntry* noop = find_entry(log, "noop_elimination");
  ASSERT_NE(noop, nullptr);
  EXPECT_EQ(noop->level, 1);
  EXPECT_EQ(noop->stats.changes.at("removed Identity"), 2);
  EXPECT_EQ(noop->stats.nodes.at("removed Identity"), (std::vector<std::string>{"id1", "id2"}));
  ASSERT_NE(find_entry(log, "constant_folding"), nullptr);
  ASSERT_NE(find_entry(log, "dead_node_elimination"), nullptr);
  for (size_t i = 0; i < log.passes.size(); ++i) {
    for (size_t j = i + 1; j < log.passes.size(); ++j) {
      EXPECT_NE(log.passes[i].pass, log.passes[j].pass);
    }
  }
}

TEST(Optimizer, RejectsAnUnknownLevel) {
  TestModel test = make_cluttered_model();
  EXPECT_THROW(optimize(test.model, OptimizeOptions{4, {}}, kernels::OpRegistry::reference()),
               Error);
}

TEST(Optimizer, OpKeyNamesTheDomain) {
  model::Node node;
  node.op_type = "Conv";
  EXPECT_EQ(op_key(node), "Conv");
  node.domain = "ai.inferlab";
  node.op_type = "FusedConv";
  EXPECT_EQ(op_key(node), "ai.inferlab::FusedConv");
}

std::string zoo_path(const std::string& name) {
  return testing::cache_dir() + "/models/" + name + ".onnx";
}

TEST(OptimizerZoo, LevelOneRemovesTheIdentityNodesOfResnet50) {
  const std::string path = zoo_path("resnet50_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  model::Model model = model::import_model_file(path);
  const OptimizationLog log =
      optimize(model, OptimizeOptions{1, {}}, kernels::OpRegistry::reference());
  EXPECT_EQ(log.op_counts_before.at("Identity"), 47);
  EXPECT_EQ(log.op_counts_after.count("Identity"), 0u);
  EXPECT_LE(log.nodes_after, log.nodes_before - 47);
}

// Passes rewire nodes and add the initializers they compute; the ones they
// leave as they are keep their memory (a copy would double a model's
// weights while it loads).
TEST(OptimizerZoo, LeavesTheMemoryOfUntouchedInitializersWhereItWas) {
  const std::string path = zoo_path("resnet50_op17");
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  model::Model model = model::import_model_file(path);
  std::map<std::string, const void*> before;
  for (const auto& [name, tensor] : model.graph->initializers) before[name] = tensor.raw_data();
  optimize(model, OptimizeOptions{3, {}},
           kernels::OpRegistry::for_isa(kernels::cpu::effective_isa(kernels::cpu::Isa::kAvx512)));
  size_t kept = 0;
  for (const auto& [name, tensor] : model.graph->initializers) {
    auto it = before.find(name);
    if (it == before.end()) continue;  // computed by a pass
    ++kept;
    EXPECT_EQ(tensor.raw_data(), it->second) << name << " was copied";
  }
  EXPECT_GE(kept, 50u);
}

Tensor run_session(runtime::Session& session, const std::string& path) {
  const Tensor input = read_npy(path.substr(0, path.size() - 5) + ".input.npy");
  return session.run({{session.inputs()[0].name, input}}).at(session.outputs()[0].name);
}

// Level 1 in a Session, and the level-1 model written as ONNX and loaded
// back without optimization, both against level 0 (files with fused
// operators are checked in ONNX Runtime by the CLI tests).
void check_zoo_model(const std::string& name) {
  const std::string path = zoo_path(name);
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  runtime::SessionOptions options;
  options.opt_level = 0;
  runtime::Session base = runtime::Session::load(path, options);
  const Tensor reference = run_session(base, path);
  options.opt_level = 1;
  runtime::Session basic = runtime::Session::load(path, options);
  const double basic_error = testing::relative_error(run_session(basic, path), reference);
  EXPECT_LE(basic_error, 1e-4);

  model::Model model = model::import_model_file(path);
  const OptimizationLog log =
      optimize(model, OptimizeOptions{1, {}}, kernels::OpRegistry::reference());
  const std::string bytes = serialize_model(export_for_onnxruntime(model));
  options.opt_level = 0;
  runtime::Session exported = runtime::Session::load_bytes(bytes.data(), bytes.size(), options);
  const double exported_error = testing::relative_error(run_session(exported, path), reference);
  EXPECT_LE(exported_error, 1e-4);
  EXPECT_EQ(static_cast<size_t>(log.nodes_after), basic.model().graph->nodes.size());
  std::printf("%s: nodes level 0 %lld, level 1 %lld; error level 1 %.3g, exported %.3g\n",
              name.c_str(), static_cast<long long>(log.nodes_before),
              static_cast<long long>(log.nodes_after), basic_error, exported_error);
}

TEST(OptimizerZoo, Resnet50MatchesLevelZero) { check_zoo_model("resnet50_op17"); }
TEST(OptimizerZoo, MobilenetV2MatchesLevelZero) { check_zoo_model("mobilenet_v2_op17"); }
TEST(OptimizerZoo, EncoderMatchesLevelZero) { check_zoo_model("encoder_op17"); }

}  // namespace
}  // namespace inferlab::optimizer
