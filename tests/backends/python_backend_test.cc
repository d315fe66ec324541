// The `python` backend through InferLab's parent side: a worker process
// (the python/inferlab_worker/ package) hosting PyTorch eager and TorchScript. Zoo
// model directories must match PyTorch's saved outputs at FP32; the
// fixtures in tests/backends/data/ exercise errors (a worker crashing
// mid-run, wrong inputs, refused settings) and the thread count, which is
// judged by which worker threads accumulate CPU time, never by durations.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/backends/registry.h"
#include "inferlab/core/npy.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

namespace fs = std::filesystem;
using testing::cache_dir;
using testing::relative_error;
using testing::source_dir;

constexpr double kMaxFp32Error = 1e-4;
// A worker thread "computes" when its CPU time grows at least this much
// across the runs (clock ticks are 10 ms; idle pool threads stay at 0).
constexpr int64_t kBusyThreadCpuMs = 20;

Backend& python_backend() {
  static BackendRegistry registry(BackendEnvironment::from_process_environment());
  static std::shared_ptr<Backend> backend = registry.get("python");
  return *backend;
}

std::string fixture(const std::string& name) {
  return source_dir() + "/tests/backends/data/" + name;
}

std::unique_ptr<Model> open_fixture(const std::string& name, BackendOptions options = {}) {
  return python_backend().open(ModelSource::resolve(fixture(name)), options);
}

BackendOptions with_mode(const std::string& mode, int threads = 0) {
  BackendOptions options;
  options.threads = threads;
  options.settings["mode"] = mode;
  return options;
}

// The Error `call` throws, or a failure when it throws none.
template <typename Call>
Error error_of(Call&& call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "expected an inferlab::Error";
  return Error(ErrorCode::kRuntime, "");
}

pid_t worker_pid(const Model& model) { return model.configuration().at("worker_pid").get<pid_t>(); }

// CPU time (utime + stime, ms) of each thread of `pid`, by thread id.
std::map<std::string, int64_t> thread_cpu_ms(pid_t pid) {
  std::map<std::string, int64_t> cpu_ms;
  const int64_t ticks_per_second = sysconf(_SC_CLK_TCK);
  const fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const fs::directory_entry& task : fs::directory_iterator(tasks)) {
    std::ifstream stat(task.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t after_name = text.rfind(')');
    if (after_name == std::string::npos) continue;
    std::istringstream fields(text.substr(after_name + 2));
    std::vector<std::string> values;
    for (std::string value; fields >> value && values.size() < 13;) values.push_back(value);
    if (values.size() < 13) continue;  // fields 3.. of stat; utime and stime are 14 and 15
    const int64_t ticks = std::stoll(values[11]) + std::stoll(values[12]);
    cpu_ms[task.path().filename().string()] = ticks * 1000 / ticks_per_second;
  }
  return cpu_ms;
}

int busy_threads_during(Model& model, const TensorMap& inputs, int runs) {
  const pid_t pid = worker_pid(model);
  const std::map<std::string, int64_t> before = thread_cpu_ms(pid);
  for (int i = 0; i < runs; ++i) model.run(inputs);
  int busy = 0;
  for (const auto& [thread, cpu_ms] : thread_cpu_ms(pid)) {
    auto it = before.find(thread);
    if (cpu_ms - (it == before.end() ? 0 : it->second) >= kBusyThreadCpuMs) ++busy;
  }
  return busy;
}

// ---------------------------------------------------------------- zoo --

struct ZooCase {
  std::string arch;
  std::string mode;  // python's "mode" setting
};

void PrintTo(const ZooCase& zoo_case, std::ostream* out) {
  *out << zoo_case.arch << " (" << zoo_case.mode << ")";
}

class PythonZooModel : public ::testing::TestWithParam<ZooCase> {};

TEST_P(PythonZooModel, MatchesPyTorchAtFp32) {
  const ZooCase& zoo_case = GetParam();
  const std::string directory = cache_dir() + "/models/zoo/" + zoo_case.arch;
  ASSERT_TRUE(fs::exists(directory + "/model.json"))
      << directory << " is missing: run `make models` (tools/export_models.py)";
  const ModelSource source = ModelSource::resolve(directory);
  ASSERT_EQ(source.reference_inputs.size(), 1u);
  ASSERT_EQ(source.reference_outputs.count("output"), 1u);
  const auto& [input_name, input_path] = *source.reference_inputs.begin();

  auto model = python_backend().open(source, with_mode(zoo_case.mode));
  EXPECT_EQ(model->configuration().at("mode"), zoo_case.mode);
  const TensorMap outputs = model->run({{input_name, read_npy(input_path)}});

  const Tensor reference = read_npy(source.reference_outputs.at("output"));
  ASSERT_EQ(outputs.count("output"), 1u);
  ASSERT_EQ(outputs.at("output").shape(), reference.shape());
  EXPECT_LE(relative_error(outputs.at("output"), reference), kMaxFp32Error);
}

std::string zoo_case_name(const ::testing::TestParamInfo<ZooCase>& info) {
  return info.param.arch + "_" + info.param.mode;
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, PythonZooModel,
    ::testing::Values(ZooCase{"resnet50", "eager"}, ZooCase{"resnet50", "torchscript"},
                      ZooCase{"mobilenet_v2", "eager"}, ZooCase{"mobilenet_v2", "torchscript"},
                      ZooCase{"efficientnet_b0", "eager"},
                      ZooCase{"efficientnet_b0", "torchscript"}, ZooCase{"encoder", "eager"},
                      ZooCase{"encoder", "torchscript"}),
    zoo_case_name);

TEST(PythonBackend, RunsBareTorchScriptFile) {
  const std::string directory = cache_dir() + "/models/zoo/mobilenet_v2";
  ASSERT_TRUE(fs::exists(directory + "/model.torchscript.pt")) << "run `make models`";
  auto model = python_backend().open(ModelSource::resolve(directory + "/model.torchscript.pt"),
                                     BackendOptions{});
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->configuration().at("mode"), "torchscript");
  const TensorMap outputs =
      model->run({{model->inputs()[0].name, read_npy(directory + "/input.npy")}});
  ASSERT_EQ(outputs.count("output"), 1u);
  EXPECT_LE(relative_error(outputs.at("output"), read_npy(directory + "/output.npy")),
            kMaxFp32Error);
}

// ------------------------------------------------------------ fixtures --

TEST(PythonBackend, DescribesTorchAndItsEnvironment) {
  const BackendInfo info = python_backend().info();
  ASSERT_TRUE(info.available) << info.unavailable_reason;
  EXPECT_EQ(info.version.rfind("torch ", 0), 0u) << info.version;
  EXPECT_NE(std::find(info.devices.begin(), info.devices.end(), "cpu"), info.devices.end());
  EXPECT_TRUE(info.configuration.contains("environment")) << info.configuration.dump();
  EXPECT_FALSE(info.configuration.value("blas_libraries", nlohmann::json::array()).empty())
      << "the worker lists no BLAS library mapped into it";
}

TEST(PythonBackend, StagedRunMatchesRunAndReportsTimings) {
  auto model = open_fixture("tiny_mlp");
  EXPECT_TRUE(model->capabilities().out_of_process);
  EXPECT_FALSE(model->capabilities().concurrent_run);
  EXPECT_GT(model->load_timings().load_ms, 0.0);
  EXPECT_GT(model->load_timings().startup_ms, 0.0);
  const TensorMap inputs = {{"input", testing::random_float_tensor({3, 8}, 7)}};
  const TensorMap direct = model->run(inputs);
  model->bind(inputs);
  EXPECT_GT(model->execute(), 0);
  const TensorMap staged = model->fetch();
  ASSERT_EQ(staged.count("output"), 1u);
  EXPECT_TRUE(staged.at("output").equals(direct.at("output")));
  const RunTimings timings = model->last_timings();
  EXPECT_GT(timings.convert_in_ns, 0);
  EXPECT_GT(timings.execute_ns, 0);
  EXPECT_GT(timings.convert_out_ns, 0);
  EXPECT_GT(timings.channel_ns, 0);
}

TEST(PythonBackend, NamesTupleOutputsFromTheManifest) {
  auto model = open_fixture("two_heads");
  const Tensor ids = Tensor::from_vector<int64_t>({0, 1, 2, 3, 9, 8, 7, 6}, {2, 4});
  const TensorMap outputs =
      model->run({{"features", testing::random_float_tensor({2, 8}, 3)}, {"token_ids", ids}});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs.at("scores").shape(), (Shape{2, 3}));
  EXPECT_EQ(outputs.at("embedding_sum").shape(), (Shape{2, 4}));
}

TEST(PythonBackend, WorkerCrashMidRunIsAnErrorWithItsMessage) {
  auto model = open_fixture("crashes_in_forward");
  const pid_t pid = worker_pid(*model);
  const Error error = error_of([&] {
    model->run({{"input", testing::random_float_tensor({1, 4}, 1)}});
  });
  EXPECT_EQ(error.code(), ErrorCode::kUnavailable);
  EXPECT_NE(std::string(error.what()).find("deliberate crash inside forward()"), std::string::npos)
      << error.what();
  errno = 0;
  EXPECT_EQ(kill(pid, 0), -1) << "worker " << pid << " was not reaped";
  EXPECT_EQ(errno, ESRCH);
}

TEST(PythonBackend, RejectsUnknownInputName) {
  auto model = open_fixture("tiny_mlp");
  const Error error = error_of([&] {
    model->run({{"inputs", testing::random_float_tensor({1, 8}, 1)}});
  });
  EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(error.what()).find("'inputs'"), std::string::npos) << error.what();
}

TEST(PythonBackend, RejectsWrongInputShape) {
  auto model = open_fixture("tiny_mlp");
  const Error error = error_of([&] {
    model->run({{"input", testing::random_float_tensor({1, 5}, 1)}});
  });
  EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(error.what()).find("'input'"), std::string::npos) << error.what();
}

TEST(PythonBackend, RejectsInconsistentSymbolicDimsAndStaysUsable) {
  auto model = open_fixture("two_heads");
  const Tensor features = testing::random_float_tensor({2, 8}, 3);
  const Error error = error_of([&] {
    model->run({{"features", features},
                {"token_ids", Tensor::from_vector<int64_t>({0, 1, 2, 3}, {1, 4})}});
  });
  EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(error.what()).find("batch"), std::string::npos) << error.what();
  const Tensor ids = Tensor::from_vector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
  EXPECT_EQ(model->run({{"features", features}, {"token_ids", ids}}).size(), 2u);
}

TEST(PythonBackend, ExceptionInForwardIsAnErrorAndTheWorkerLives) {
  auto model = open_fixture("two_heads");
  const Tensor features = testing::random_float_tensor({2, 8}, 3);
  const Tensor bad_ids = Tensor::from_vector<int64_t>({0, 1, 2, 3, 40, 50, 60, 70}, {2, 4});
  const Error error = error_of([&] {
    model->run({{"features", features}, {"token_ids", bad_ids}});
  });
  EXPECT_EQ(error.code(), ErrorCode::kOutOfRange);
  EXPECT_NE(std::string(error.what()).find("IndexError"), std::string::npos) << error.what();
  const Tensor ids = Tensor::from_vector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
  EXPECT_EQ(model->run({{"features", features}, {"token_ids", ids}}).size(), 2u);
}

// raises_in_forward: input {i, 0} raises WorkerError with the i-th code,
// {i, 1} the Python exception the worker maps to it; {-1, x} runs.
TEST(PythonBackend, EveryErrorCodeRaisedInForwardKeepsItsCode) {
  auto model = open_fixture("raises_in_forward");
  for (int form : {0, 1}) {
    int index = 0;
    for (ErrorCode code : kAllErrorCodes) {
      const Tensor selector = Tensor::from_vector<float>(
          {static_cast<float>(index++), static_cast<float>(form)}, {1, 2});
      const Error error = error_of([&] { model->run({{"input", selector}}); });
      EXPECT_EQ(error.code(), code) << "form " << form << ": " << error.what();
      EXPECT_EQ(std::string(error.what()).rfind("python: ", 0), 0u) << error.what();
    }
  }
  const TensorMap outputs =
      model->run({{"input", Tensor::from_vector<float>({-1.0f, 3.0f}, {1, 2})}});
  EXPECT_EQ(outputs.at("output").data<float>()[1], 6.0f);
}

TEST(PythonBackend, CompileModeNeedsTorchCompile) {
  const BackendInfo info = python_backend().info();
  if (info.version.rfind("torch 1.", 0) != 0) GTEST_SKIP() << info.version << " has torch.compile";
  const Error error = error_of([&] { open_fixture("tiny_mlp", with_mode("compile")); });
  EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(error.what()).find("torch.compile"), std::string::npos) << error.what();
}

TEST(PythonBackend, RejectsUnknownSetting) {
  BackendOptions options;
  options.settings["mdoe"] = "eager";
  const Error error = error_of([&] { open_fixture("tiny_mlp", options); });
  EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(std::string(error.what()).find("'mdoe'"), std::string::npos) << error.what();
}

TEST(PythonBackend, RefusesTorchScriptModeWithoutTorchScriptFile) {
  const Error error = error_of([&] { open_fixture("tiny_mlp", with_mode("torchscript")); });
  EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
  EXPECT_NE(std::string(error.what()).find("artifacts.torchscript"), std::string::npos)
      << error.what();
}

TEST(PythonBackend, HonoursThreadCount) {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const TensorMap inputs = {{"input", testing::random_float_tensor({1, 65536}, 5)}};
  for (int threads : {1, 2}) {
    if (threads > cores) continue;
    BackendOptions options;
    options.threads = threads;
    auto model = open_fixture("busy_threads", options);
    EXPECT_EQ(model->configuration().at("threads"), threads);
    model->run(inputs);  // the first run starts the pool
    EXPECT_EQ(busy_threads_during(*model, inputs, 3), threads) << "threads=" << threads;
  }
}

}  // namespace
}  // namespace inferlab::backends
