// "This model, on every engine": each zoo model directory runs on all four
// backends from the one directory, and their outputs agree with each other
// and with PyTorch's reference at FP32 tolerance. Also: thread counts asked
// for are the thread counts that compute, counted from CPU time.
#include <gtest/gtest.h>

#include "inferlab/backends/registry.h"
#include "inferlab/core/npy.h"
#include "test_util.h"
#include "thread_census.h"

namespace inferlab::backends {
namespace {

constexpr double kFp32Tolerance = 1e-4;

std::string zoo_dir(const std::string& name) {
  return testing::cache_dir() + "/models/zoo/" + name;
}

class EveryBackend : public ::testing::TestWithParam<std::string> {
 protected:
  BackendRegistry registry_{BackendEnvironment::from_process_environment()};
};

TEST_P(EveryBackend, OutputsAgreeFromOneModelDirectory) {
  const ModelSource source = ModelSource::resolve(zoo_dir(GetParam()));
  ASSERT_EQ(source.reference_inputs.size(), 1u);
  const auto& [input_name, input_file] = *source.reference_inputs.begin();
  const TensorMap inputs = {{input_name, read_npy(input_file)}};
  const std::string output_name = source.outputs.at(0).info.name;
  const Tensor reference = read_npy(source.reference_outputs.at(output_name));
  BackendOptions options;
  options.threads = 2;
  std::map<std::string, Tensor> results;
  for (const std::string& name : BackendRegistry::known_names()) {
    auto model = registry_.get(name)->open(source, options);
    results[name] = model->run(inputs).at(output_name);
    EXPECT_LE(testing::relative_error(results[name], reference), kFp32Tolerance) << name;
  }
  for (const auto& [name, output] : results) {
    EXPECT_LE(testing::relative_error(output, results.at("onnxruntime")), kFp32Tolerance)
        << name << " vs onnxruntime";
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, EveryBackend,
                         ::testing::Values("resnet50", "mobilenet_v2", "efficientnet_b0",
                                           "encoder"));

// Runs resnet50 a few times and counts the worker's threads that computed.
int libtorch_threads_that_worked(BackendRegistry& registry, int threads) {
  BackendOptions options;
  options.threads = threads;
  auto model = registry.get("libtorch")->open(ModelSource::resolve(zoo_dir("resnet50")), options);
  const pid_t worker = model->configuration().at("worker_pid").get<pid_t>();
  const TensorMap inputs = {
      {"input", testing::random_float_tensor({1, 3, 224, 224}, 9, 0.0f, 1.0f)}};
  model->run(inputs);  // warm-up: thread pools start
  const auto before = testing::thread_cpu_ticks(worker);
  for (int i = 0; i < 4; ++i) model->run(inputs);
  return testing::threads_that_worked(before, testing::thread_cpu_ticks(worker));
}

TEST(BackendThreads, LibTorchWorkerComputesWithTheThreadsAskedFor) {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  EXPECT_EQ(libtorch_threads_that_worked(registry, 1), 1);
  EXPECT_EQ(libtorch_threads_that_worked(registry, 2), 2);
}

TEST(BackendThreads, NativeNeverComputesWithMoreThreadsThanAskedFor) {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  BackendOptions options;
  options.threads = 1;
  auto model = registry.get("native")->open(ModelSource::resolve(zoo_dir("mobilenet_v2")), options);
  const TensorMap inputs = {
      {"input", testing::random_float_tensor({1, 3, 224, 224}, 9, 0.0f, 1.0f)}};
  const auto before = testing::thread_cpu_ticks(getpid());
  for (int i = 0; i < 3; ++i) model->run(inputs);
  EXPECT_EQ(testing::threads_that_worked(before, testing::thread_cpu_ticks(getpid())), 1);
}

}  // namespace
}  // namespace inferlab::backends
