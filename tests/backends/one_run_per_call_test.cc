// One call computes once, on every backend and placement: run(), and each
// execute() of a staged run (the first of a new binding included), report
// RunTimings::engine_runs == 1, counted where each engine is called (the
// native Session's executions, ONNX Runtime's Session::Run, TorchScript's
// forward, the Python worker's module calls). The native backend once ran a
// new binding twice (once more to place its outputs).
#include <gtest/gtest.h>

#include "inferlab/backends/registry.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

struct Engine {
  std::string backend;
  Placement placement = Placement::kDefault;
};

std::string engine_name(const ::testing::TestParamInfo<Engine>& info) {
  return info.param.backend +
         (info.param.placement == Placement::kChildProcess ? "_in_a_worker" : "");
}

class OneRunPerCall : public ::testing::TestWithParam<Engine> {
 protected:
  std::unique_ptr<Model> open_mobilenet() {
    BackendOptions options;
    options.threads = 1;
    const std::string directory = testing::cache_dir() + "/models/zoo/mobilenet_v2";
    return registry_.get(GetParam().backend, GetParam().placement)
        ->open(ModelSource::resolve(directory), options);
  }

  static TensorMap image(uint32_t seed) {
    return {{"input", testing::random_float_tensor({1, 3, 224, 224}, seed, 0.0f, 1.0f)}};
  }

  BackendRegistry registry_{BackendEnvironment::from_process_environment()};
};

TEST_P(OneRunPerCall, RunComputesOnce) {
  auto model = open_mobilenet();
  for (uint32_t seed : {1u, 2u}) {
    model->run(image(seed));
    EXPECT_EQ(model->last_timings().engine_runs, 1) << "seed " << seed;
  }
}

TEST_P(OneRunPerCall, EveryExecuteOfANewBindingComputesOnce) {
  auto model = open_mobilenet();
  for (uint32_t seed : {3u, 4u}) {
    model->bind(image(seed));
    for (int run = 0; run < 2; ++run) {
      model->execute();
      EXPECT_EQ(model->last_timings().engine_runs, 1) << "seed " << seed << ", run " << run;
    }
    const TensorMap staged = model->fetch();
    const TensorMap once = model->run(image(seed));
    EXPECT_LE(testing::relative_error(staged.at("output"), once.at("output")), 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, OneRunPerCall,
                         ::testing::Values(Engine{"native"},
                                           Engine{"native", Placement::kChildProcess},
                                           Engine{"onnxruntime"},
                                           Engine{"onnxruntime", Placement::kChildProcess},
                                           Engine{"libtorch"}, Engine{"python"}),
                         engine_name);

// The Session under the native backend counts what it executes.
TEST(SessionExecutions, CountOneForEachRunForm) {
  runtime::SessionOptions options;
  options.threads = 1;
  runtime::Session session =
      runtime::Session::load(testing::cache_dir() + "/models/mobilenet_v2_op17.onnx", options);
  const TensorMap inputs = {
      {"input", testing::random_float_tensor({1, 3, 224, 224}, 5, 0.0f, 1.0f)}};
  session.run(inputs);
  EXPECT_EQ(session.executions(), 1);
  session.bind(inputs);
  session.run();
  session.run();
  EXPECT_EQ(session.executions(), 3);
}

}  // namespace
}  // namespace inferlab::backends
