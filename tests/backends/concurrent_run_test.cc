// Concurrency through Backend: native's streams setting turns on throughput
// mode (Capabilities::concurrent_run) and run() from several threads at once
// gives each request its own answer, as onnxruntime's does; the streams of a
// model, and a second instance of the same file, share one graph, its
// constants and its packed weights (counted in configuration()).
#include <gtest/gtest.h>

#include <thread>

#include "inferlab/backends/native_backend.h"
#include "inferlab/backends/registry.h"
#include "inferlab/core/process_stats.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

std::string zoo_dir(const std::string& name) {
  return testing::cache_dir() + "/models/zoo/" + name;
}

TensorMap image(uint32_t seed) {
  return {{"input", testing::random_float_tensor({1, 3, 224, 224}, seed, 0.0f, 1.0f)}};
}

BackendOptions with_streams(int threads, const std::string& streams) {
  BackendOptions options;
  options.threads = threads;
  if (!streams.empty()) options.settings["streams"] = streams;
  return options;
}

// Four threads, three requests each, on different inputs; every answer must
// be the one a lone run gives for its input.
void expect_concurrent_runs_answer_each_request(Model& model) {
  ASSERT_TRUE(model.capabilities().concurrent_run);
  constexpr int kThreads = 4;
  constexpr int kRequests = 3;
  std::vector<Tensor> expected;
  for (int i = 0; i < kThreads * kRequests; ++i)
    expected.push_back(model.run(image(100 + i)).at("output"));
  std::vector<double> errors(kThreads * kRequests, -1.0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int r = 0; r < kRequests; ++r) {
        const int i = t * kRequests + r;
        const Tensor output = model.run(image(100 + i)).at("output");
        errors[i] = testing::relative_error(output, expected[i]);
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  for (size_t i = 0; i < errors.size(); ++i) {
    EXPECT_GE(errors[i], 0.0) << "request " << i << " did not finish";
    EXPECT_LE(errors[i], 1e-5) << "request " << i;
  }
}

TEST(ConcurrentRun, NativeStreamsAnswerEachOfManyCallers) {
  auto model = make_native_backend()->open(ModelSource::resolve(zoo_dir("mobilenet_v2")),
                                           with_streams(2, "2"));
  const nlohmann::json configuration = model->configuration();
  EXPECT_EQ(configuration.at("mode"), "throughput");
  EXPECT_EQ(configuration.at("streams"), 2);
  EXPECT_EQ(configuration.at("threads_per_stream"), 1);
  expect_concurrent_runs_answer_each_request(*model);
}

TEST(ConcurrentRun, OnnxRuntimeAnswersEachOfManyCallers) {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  BackendOptions options;
  options.threads = 1;
  auto model =
      registry.get("onnxruntime")->open(ModelSource::resolve(zoo_dir("mobilenet_v2")), options);
  expect_concurrent_runs_answer_each_request(*model);
}

TEST(ConcurrentRun, NativeLatencyModeSaysItIsNotConcurrent) {
  auto model = make_native_backend()->open(ModelSource::resolve(zoo_dir("mobilenet_v2")),
                                           with_streams(1, ""));
  EXPECT_FALSE(model->capabilities().concurrent_run);
  EXPECT_EQ(model->configuration().at("mode"), "latency");
}

TEST(ConcurrentRun, NativeStreamsSettingIsChecked) {
  for (const std::string bad : {"two", "-1", "2x"}) {
    try {
      make_native_backend()->open(ModelSource::resolve(zoo_dir("mobilenet_v2")),
                                  with_streams(2, bad));
      ADD_FAILURE() << "streams=" << bad << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(error.what()).find("streams"), std::string::npos) << error.what();
    }
  }
}

// Streams of one thread each pack the weights in the layouts one latency
// session of one thread does, and hold each layout once between them.
TEST(SharedWeights, StreamsHoldOnePackedCopyOfEachLayout) {
  auto backend = make_native_backend();
  auto single = backend->open(ModelSource::resolve(zoo_dir("mobilenet_v2")), with_streams(1, ""));
  single->run(image(1));
  const nlohmann::json one = single->configuration().at("weights");
  single.reset();  // a second instance would share its copies
  auto streams = backend->open(ModelSource::resolve(zoo_dir("mobilenet_v2")), with_streams(2, "2"));
  std::thread other([&] { streams->run(image(2)); });
  streams->run(image(3));
  other.join();
  const nlohmann::json two = streams->configuration().at("weights");
  EXPECT_GT(one.at("packed_copies").get<int64_t>(), 0);
  EXPECT_EQ(two.at("packed_copies"), one.at("packed_copies"));
  EXPECT_EQ(two.at("packed_bytes"), one.at("packed_bytes"));
  EXPECT_EQ(two.at("resident_bytes"), one.at("resident_bytes"));
}

// A second instance of an open file starts from the first one's graph and
// packed weights: opening it adds under 10% of the weights' bytes to the
// process, and running it adds no packed copy; what its first run adds
// beyond that 10% is its own run plan (activations arena and kernel scratch,
// about 14 MB for resnet50: the arena is 6.1 MiB on 2 MiB pages).
TEST(SharedWeights, SecondInstanceOfAFileAddsLittleMemory) {
  auto backend = make_native_backend();
  const ModelSource source = ModelSource::resolve(zoo_dir("resnet50"));
  auto first = backend->open(source, with_streams(1, ""));
  const TensorMap inputs = image(4);
  const Tensor expected = first->run(inputs).at("output");
  const nlohmann::json weights = first->configuration().at("weights");
  const int64_t weight_bytes =
      weights.at("released_bytes").get<int64_t>() + weights.at("resident_bytes").get<int64_t>();
  const int64_t before_kib = process_memory_kib(getpid(), "VmRSS");
  auto second = backend->open(source, with_streams(1, ""));
  const int64_t opened_bytes = (process_memory_kib(getpid(), "VmRSS") - before_kib) * 1024;
  const Tensor output = second->run(inputs).at("output");
  const int64_t ran_bytes = (process_memory_kib(getpid(), "VmRSS") - before_kib) * 1024;
  EXPECT_TRUE(output.equals(expected));
  const nlohmann::json configuration = second->configuration();
  EXPECT_EQ(configuration.at("plan_cache").at("outcome"), "shared");
  EXPECT_EQ(configuration.at("weights").at("packed_here"), 0);
  EXPECT_EQ(configuration.at("weights").at("packed_copies"), weights.at("packed_copies"));
  EXPECT_EQ(configuration.at("weights").at("packed_bytes"), weights.at("packed_bytes"));
  EXPECT_LT(opened_bytes, weight_bytes / 10)
      << "opening added " << opened_bytes << " bytes; the weights are " << weight_bytes;
  const int64_t arena_bytes = configuration.at("run_plans").at("arena_bytes").get<int64_t>();
  EXPECT_GT(arena_bytes, 0);
  EXPECT_LT(ran_bytes - 2 * arena_bytes, weight_bytes / 10)
      << "running added " << ran_bytes << " bytes with an arena of " << arena_bytes;
}

// Another backend object (another registry) shares nothing: the store of
// open models belongs to the backend, not to the process.
TEST(SharedWeights, SeparateBackendsDoNotShare) {
  const ModelSource source = ModelSource::resolve(zoo_dir("mobilenet_v2"));
  auto first = make_native_backend()->open(source, with_streams(1, ""));
  auto second = make_native_backend()->open(source, with_streams(1, ""));
  EXPECT_NE(second->configuration().at("plan_cache").at("outcome"), "shared");
}

}  // namespace
}  // namespace inferlab::backends
