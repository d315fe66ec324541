// The static memory planner (runtime/memory_plan.h) and the Session's run
// plans per input-shape signature, on the zoo models.
#include "inferlab/runtime/memory_plan.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/core/npy.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

std::string zoo(const std::string& name) { return testing::cache_dir() + "/models/" + name; }

// Two tensors whose lifetimes overlap never share bytes (unless one is a
// view or in-place result of the other, which the plan records as one buffer).
void expect_no_live_overlap(const MemoryPlan& plan) {
  const auto& all = plan.placements;
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].offset % 64, 0) << all[i].value;
    EXPECT_LE(all[i].offset + all[i].bytes, plan.arena_bytes) << all[i].value;
    for (size_t j = i + 1; j < all.size(); ++j) {
      if (all[i].buffer == all[j].buffer) continue;
      const bool live_together =
          all[i].first_step <= all[j].last_step && all[j].first_step <= all[i].last_step;
      const bool share_bytes = all[i].offset < all[j].offset + all[j].bytes &&
                               all[j].offset < all[i].offset + all[i].bytes;
      EXPECT_FALSE(live_together && share_bytes) << all[i].value << " and " << all[j].value;
    }
  }
}

TEST(MemoryPlan, Resnet50ArenaIsFarBelowTheNaiveSumForBothStrategies) {
  if (!std::filesystem::exists(zoo("resnet50_op17.onnx"))) GTEST_SKIP() << "missing zoo model";
  // The unoptimized graph: its Relus after residual Adds are the in-place case.
  SessionOptions unoptimized;
  unoptimized.opt_level = 0;
  Session session = Session::load(zoo("resnet50_op17.onnx"), unoptimized);
  ShapeInferenceOptions shape_options;
  const ShapeInferenceResult shapes =
      infer_shapes(session.model(), shape_options, kernels::OpRegistry::reference());
  for (PlacementStrategy strategy :
       {PlacementStrategy::kGreedyBySize, PlacementStrategy::kBestFit}) {
    MemoryPlanOptions options;
    options.strategy = strategy;
    const MemoryPlan plan = plan_memory(*session.model().graph, shapes, options);
    EXPECT_GT(plan.placements.size(), 100u);
    EXPECT_LT(plan.arena_bytes * 4, plan.naive_bytes) << placement_strategy_name(strategy);
    EXPECT_GT(plan.in_place, 0);  // the Relus after each residual Add
    EXPECT_GT(plan.views, 0);     // Flatten
    expect_no_live_overlap(plan);
  }
}

TEST(MemoryPlan, Resnet50FusedGraphPlansFarBelowTheNaiveSum) {
  if (!std::filesystem::exists(zoo("resnet50_op17.onnx"))) GTEST_SKIP() << "missing zoo model";
  Session session = Session::load(zoo("resnet50_op17.onnx"));  // level 3: FusedConv nodes
  const ShapeInferenceResult shapes =
      infer_shapes(session.model(), ShapeInferenceOptions{}, kernels::OpRegistry::reference());
  const MemoryPlan plan = plan_memory(*session.model().graph, shapes, MemoryPlanOptions{});
  EXPECT_GT(plan.placements.size(), 50u);
  EXPECT_LT(plan.arena_bytes * 4, plan.naive_bytes);
  expect_no_live_overlap(plan);
  // Each of the 16 residual blocks adds its input (or its downsample) in the
  // block's last convolution, where that value dies: the output takes over
  // its buffer, so no copy of the residual is needed.
  int residual_in_place = 0;
  for (const model::Node& node : session.model().graph->nodes) {
    if (node.op_type != "FusedConv" || node.inputs.size() < 4 || node.inputs[3].empty()) continue;
    const TensorPlacement* output = plan.find(node.outputs[0]);
    const TensorPlacement* residual = plan.find(node.inputs[3]);
    ASSERT_NE(output, nullptr);
    ASSERT_NE(residual, nullptr);
    if (output->kind == TensorPlacement::Kind::kInPlace && output->buffer == residual->buffer) {
      ++residual_in_place;
    }
  }
  EXPECT_EQ(residual_in_place, 16);
}

TEST(MemoryPlan, InPlaceOffKeepsEveryNonViewTensorInItsOwnBuffer) {
  if (!std::filesystem::exists(zoo("resnet50_op17.onnx"))) GTEST_SKIP() << "missing zoo model";
  Session session = Session::load(zoo("resnet50_op17.onnx"));
  const ShapeInferenceResult shapes =
      infer_shapes(session.model(), ShapeInferenceOptions{}, kernels::OpRegistry::reference());
  MemoryPlanOptions options;
  options.in_place = false;
  const MemoryPlan plan = plan_memory(*session.model().graph, shapes, options);
  EXPECT_EQ(plan.in_place, 0);
  EXPECT_EQ(plan.buffers + plan.views, static_cast<int64_t>(plan.placements.size()));
  expect_no_live_overlap(plan);
}

TEST(MemoryPlan, EncoderPlanSkipsFoldedShapeValues) {
  if (!std::filesystem::exists(zoo("encoder_op17.onnx"))) GTEST_SKIP() << "missing zoo model";
  Session session = Session::load(zoo("encoder_op17.onnx"));
  const ShapeInferenceResult shapes =
      infer_shapes(session.model(), ShapeInferenceOptions{}, kernels::OpRegistry::reference());
  const MemoryPlan plan = plan_memory(*session.model().graph, shapes);
  for (const TensorPlacement& placement : plan.placements) {
    EXPECT_EQ(shapes.known_values.count(placement.value), 0u) << placement.value;
  }
  EXPECT_LT(plan.arena_bytes, plan.naive_bytes);
  expect_no_live_overlap(plan);
}

TEST(Session, NewInputShapesBuildAnotherPlanAndReuseCachedOnes) {
  const std::string base = zoo("mobilenet_v2_op17_dyn");
  if (!std::filesystem::exists(base + ".batch2.input.npy")) GTEST_SKIP() << "missing zoo model";
  SessionOptions options;
  Session session = Session::load(base + ".onnx", options);
  const Tensor one = read_npy(base + ".input.npy");
  const Tensor two = read_npy(base + ".batch2.input.npy");
  const Tensor one_expected = read_npy(base + ".output.npy");
  const Tensor two_expected = read_npy(base + ".batch2.output.npy");
  const std::string output = session.outputs()[0].name;
  EXPECT_LE(testing::relative_error(session.run({{"input", one}}).at(output), one_expected), 1e-4);
  EXPECT_EQ(session.plans_built(), 1);
  EXPECT_LE(testing::relative_error(session.run({{"input", two}}).at(output), two_expected), 1e-4);
  EXPECT_EQ(session.plans_built(), 2);
  EXPECT_GT(session.last_plan_build_ms(), 0.0);
  ASSERT_NE(session.last_memory_plan(), nullptr);
  EXPECT_LE(testing::relative_error(session.run({{"input", one}}).at(output), one_expected), 1e-4);
  EXPECT_EQ(session.plans_built(), 2);  // batch 1 came from the cache
  EXPECT_EQ(session.cached_plans(), 2u);
}

TEST(Session, PlanCacheDropsTheLeastRecentlyUsedSignature) {
  const std::string base = zoo("mobilenet_v2_op17_dyn");
  if (!std::filesystem::exists(base + ".batch2.input.npy")) GTEST_SKIP() << "missing zoo model";
  SessionOptions options;
  options.max_cached_plans = 1;
  Session session = Session::load(base + ".onnx", options);
  const Tensor one = read_npy(base + ".input.npy");
  const Tensor two = read_npy(base + ".batch2.input.npy");
  const Tensor two_expected = read_npy(base + ".batch2.output.npy");
  session.run({{"input", one}});
  session.bind({{"input", two}});
  session.run();
  session.run();
  const std::string output = session.outputs()[0].name;
  EXPECT_LE(testing::relative_error(session.bound_outputs().at(output), two_expected), 1e-4);
  session.run({{"input", one}});
  EXPECT_EQ(session.plans_built(), 3);  // batch 1 was dropped for batch 2, then rebuilt
  EXPECT_EQ(session.cached_plans(), 1u);
}

TEST(Session, NoPlansWhenTheCacheIsOff) {
  const std::string base = zoo("mobilenet_v2_op17_dyn");
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << "missing zoo model";
  SessionOptions options;
  options.max_cached_plans = 0;
  Session session = Session::load(base + ".onnx", options);
  const Tensor one = read_npy(base + ".input.npy");
  const std::string output = session.outputs()[0].name;
  EXPECT_LE(testing::relative_error(session.run({{"input", one}}).at(output),
                                    read_npy(base + ".output.npy")),
            1e-4);
  EXPECT_EQ(session.plans_built(), 0);
  EXPECT_EQ(session.last_memory_plan(), nullptr);
}

}  // namespace
}  // namespace inferlab::runtime
