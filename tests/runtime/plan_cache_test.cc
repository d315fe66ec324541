// The plan cache end to end: a first load saves the optimized plan with its
// prepacked weights, a second loads it (weights borrowed from the mapped
// file, none reordered) with the same outputs; a
// truncated, corrupt, stale or foreign file is reported and rebuilt, never
// trusted; a new input shape gets its own plan.
#include "inferlab/runtime/plan_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "inferlab/runtime/plan_file.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

namespace fs = std::filesystem;

std::string zoo(const std::string& name) { return testing::cache_dir() + "/models/" + name; }

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { directory_ = testing::make_temp_dir("inferlab-plan-cache"); }
  void TearDown() override { fs::remove_all(directory_); }

  SessionOptions cached_options() const {
    SessionOptions options;
    options.plan_cache_dir = directory_;
    return options;
  }
  Tensor input() const { return testing::random_float_tensor({1, 3, 224, 224}, 7, 0.0f, 1.0f); }
  Tensor reference_output() const {
    return Session::load(zoo("mobilenet_v2_op17.onnx")).run({{"input", input()}}).at("output");
  }
  // Loads mobilenet_v2 through the cache; checks the outputs; returns the status.
  PlanCacheStatus load_and_check(const Tensor& expected) const {
    Session session = Session::load(zoo("mobilenet_v2_op17.onnx"), cached_options());
    const Tensor output = session.run({{"input", input()}}).at("output");
    EXPECT_LE(testing::relative_error(output, expected), 1e-5);
    return session.plan_cache_status();
  }
  std::string plan_path() const {
    const PlanCache cache(directory_);
    return cache.path_for(cache.key({zoo("mobilenet_v2_op17.onnx"), 3, {}, {}}));
  }

  std::string directory_;
};

TEST_F(PlanCacheTest, SavesThenLoadsWithTheSameOutputs) {
  const Tensor expected = reference_output();
  const PlanCacheStatus first = load_and_check(expected);
  EXPECT_EQ(first.outcome, "saved") << first.detail;
  EXPECT_TRUE(fs::exists(first.path));
  Session session = Session::load(zoo("mobilenet_v2_op17.onnx"), cached_options());
  EXPECT_EQ(session.plan_cache_status().outcome, "loaded");
  EXPECT_EQ(session.plan_cache_status().path, first.path);
  // The weights are borrowed from the mapped plan, not copied.
  EXPECT_NE(session.model().backing, nullptr);
  EXPECT_LE(testing::relative_error(session.run({{"input", input()}}).at("output"), expected),
            1e-5);
}

// A model with static inputs is planned at load, so its plan keeps the
// prepacked weights: a cached load reorders none, takes them from the file
// as they are, and gives the same bits. The originals the first session
// released are saved as stand-ins and rebuilt from the packed copies.
TEST_F(PlanCacheTest, ACachedLoadReordersNoWeights) {
  SessionOptions options = cached_options();
  options.threads = 1;
  Session first = Session::load(zoo("mobilenet_v2_op17.onnx"), options);
  ASSERT_EQ(first.plan_cache_status().outcome, "saved") << first.plan_cache_status().detail;
  const WeightMemory uncached = first.weight_memory();
  EXPECT_GT(uncached.packed_here, 0);
  EXPECT_EQ(uncached.packed_here, uncached.packed_copies);
  EXPECT_GT(uncached.released_count, 0);
  const Tensor expected = first.run({{"input", input()}}).at("output");

  Session second = Session::load(zoo("mobilenet_v2_op17.onnx"), options);
  ASSERT_EQ(second.plan_cache_status().outcome, "loaded");
  const WeightMemory cached = second.weight_memory();
  EXPECT_EQ(cached.packed_here, 0);
  EXPECT_EQ(cached.packed_copies, uncached.packed_copies);
  EXPECT_EQ(cached.packed_bytes, uncached.packed_bytes);
  EXPECT_EQ(cached.released_count, uncached.released_count);
  EXPECT_EQ(second.plans_built(), 1);  // at load
  EXPECT_TRUE(second.run({{"input", input()}}).at("output").equals(expected));
  EXPECT_EQ(second.weight_memory().packed_here, 0);
  EXPECT_EQ(second.plans_built(), 1);

  // The released originals come back bit for bit from the packed copies.
  const model::Model imported = Session::load(zoo("mobilenet_v2_op17.onnx")).model_with_weights();
  const model::Model rebuilt = second.model_with_weights();
  EXPECT_EQ(imported.graph->initializers.size(), rebuilt.graph->initializers.size());
  for (const auto& [name, weights] : imported.graph->initializers) {
    ASSERT_TRUE(rebuilt.graph->initializers.at(name).equals(weights)) << name;
  }
}

// Without run plans (max_cached_plans 0) every run reads the originals: the
// ones saved as stand-ins are rebuilt from the restored packed copies.
TEST_F(PlanCacheTest, AnUnplannedRunRebuildsTheWeightsSavedAsStandIns) {
  SessionOptions options = cached_options();
  options.threads = 1;
  Session first = Session::load(zoo("mobilenet_v2_op17.onnx"), options);
  const Tensor expected = first.run({{"input", input()}}).at("output");
  options.max_cached_plans = 0;
  Session unplanned = Session::load(zoo("mobilenet_v2_op17.onnx"), options);
  ASSERT_EQ(unplanned.plan_cache_status().outcome, "loaded");
  EXPECT_LE(testing::relative_error(unplanned.run({{"input", input()}}).at("output"), expected),
            1e-5);
  EXPECT_EQ(unplanned.weight_memory().released_count, 0);
}

TEST_F(PlanCacheTest, ACorruptWeightIsDetectedAndTheFileRebuilt) {
  const Tensor expected = reference_output();
  load_and_check(expected);
  {
    std::fstream file(plan_path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1000, std::ios::end);
    file.put('\x5a');
  }
  const PlanCacheStatus status = load_and_check(expected);
  EXPECT_EQ(status.outcome, "rebuilt");
  EXPECT_EQ(status.detail.rfind("corrupt: weights checksum", 0), 0u) << status.detail;
  EXPECT_EQ(load_and_check(expected).outcome, "loaded");
}

TEST_F(PlanCacheTest, ATruncatedFileIsDetected) {
  const Tensor expected = reference_output();
  load_and_check(expected);
  fs::resize_file(plan_path(), fs::file_size(plan_path()) / 2);
  const PlanCacheStatus status = load_and_check(expected);
  EXPECT_EQ(status.outcome, "rebuilt");
  EXPECT_EQ(status.detail.rfind("truncated", 0), 0u) << status.detail;
}

TEST_F(PlanCacheTest, AFileThatIsNotAPlanIsCorrupt) {
  testing::write_file(plan_path(), "certainly not a plan");
  const PlanCacheStatus status = load_and_check(reference_output());
  EXPECT_EQ(status.detail.rfind("corrupt: not an InferLab plan file", 0), 0u) << status.detail;
}

TEST_F(PlanCacheTest, APlanOfAnotherFormatOrBuildIsStale) {
  const Tensor expected = reference_output();
  load_and_check(expected);
  {
    std::fstream file(plan_path(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(16);
    const uint32_t old_version = 0;
    file.write(reinterpret_cast<const char*>(&old_version), sizeof(old_version));
  }
  PlanCacheStatus status = load_and_check(expected);
  EXPECT_EQ(status.detail, "stale: format version 0 (this build reads 2)");

  // A plan written by another build of InferLab for the same model.
  const PlanCache cache(directory_);
  nlohmann::json key = cache.key({zoo("mobilenet_v2_op17.onnx"), 3, {}, {}});
  key["build"] = "build-id:0123456789abcdef";
  const Session session = Session::load(zoo("mobilenet_v2_op17.onnx"));
  write_plan_file(plan_path(), key, session.model());
  status = load_and_check(expected);
  EXPECT_EQ(status.outcome, "rebuilt");
  EXPECT_EQ(status.detail.rfind("stale: build is \"build-id:0123456789abcdef\"", 0), 0u)
      << status.detail;
}

TEST_F(PlanCacheTest, APlanOfAnotherModelIsForeign) {
  const Tensor expected = reference_output();
  SessionOptions options = cached_options();
  const std::string other = Session::load(zoo("resnet50_op17.onnx"), options)
                                .plan_cache_status()
                                .path;  // resnet50's plan
  fs::copy_file(other, plan_path(), fs::copy_options::overwrite_existing);
  const PlanCacheStatus status = load_and_check(expected);
  EXPECT_EQ(status.outcome, "rebuilt");
  EXPECT_EQ(status.detail.rfind("foreign: model_sha256 is", 0), 0u) << status.detail;
}

TEST_F(PlanCacheTest, ANewInputShapeGetsItsOwnPlan) {
  SessionOptions options = cached_options();
  std::string paths[2];
  for (int64_t batch : {1, 2}) {
    options.input_shapes = {{"input", {batch, 3, 224, 224}}};
    for (const char* expected_outcome : {"saved", "loaded"}) {
      Session session = Session::load(zoo("mobilenet_v2_op17_dyn.onnx"), options);
      EXPECT_EQ(session.plan_cache_status().outcome, expected_outcome) << "batch " << batch;
      const Tensor x = testing::random_float_tensor({batch, 3, 224, 224}, 3, 0.0f, 1.0f);
      EXPECT_EQ(session.run({{"input", x}}).at("output").shape(), (Shape{batch, 1000}));
      paths[batch - 1] = session.plan_cache_status().path;
    }
  }
  EXPECT_NE(paths[0], paths[1]);
}

}  // namespace
}  // namespace inferlab::runtime
