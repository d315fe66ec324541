// The libtorch backend on the zoo model directories (tools/export_models.py):
// each model's TorchScript artifact must reproduce the PyTorch output saved
// beside it at FP32 accuracy, and everything it cannot do must be a clear
// error naming the backend. The backend runs where the registry puts it by
// default (a worker process started with OpenBLAS's environment).
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/backends/registry.h"
#include "inferlab/core/npy.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

namespace fs = std::filesystem;

constexpr double kMaxFp32Error = 1e-4;

std::string zoo_dir(const std::string& arch) {
  return testing::cache_dir() + "/models/zoo/" + arch;
}

BackendRegistry& registry() {
  static BackendRegistry registry(BackendEnvironment::from_process_environment());
  return registry;
}

std::shared_ptr<Backend> libtorch_backend() { return registry().get("libtorch"); }

ModelSource zoo_source(const std::string& arch) {
  const std::string directory = zoo_dir(arch);
  EXPECT_TRUE(fs::exists(directory + "/.complete"))
      << directory << " is missing: run `make models` (tools/export_models.py)";
  return ModelSource::resolve(directory);
}

std::unique_ptr<Model> open_zoo(const std::string& arch, BackendOptions options = {}) {
  if (options.threads == 0) options.threads = 2;
  return libtorch_backend()->open(zoo_source(arch), options);
}

// Runs `action`, which must throw an Error with `code` whose message holds `part`.
void expect_error(const std::function<void()>& action, ErrorCode code, const std::string& part) {
  try {
    action();
    ADD_FAILURE() << "no error; expected one mentioning '" << part << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error_code_name(error.code()), std::string(error_code_name(code))) << error.what();
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("libtorch"), std::string::npos) << error.what();
  }
}

class LibTorchZooModel : public ::testing::TestWithParam<std::string> {};

TEST_P(LibTorchZooModel, MatchesPyTorchAtFp32) {
  const ModelSource source = zoo_source(GetParam());
  ASSERT_EQ(source.reference_outputs.count("output"), 1u);
  const std::unique_ptr<Model> model = open_zoo(GetParam());
  const std::string input_name = source.inputs.at(0).info.name;
  const TensorMap outputs =
      model->run({{input_name, read_npy(source.reference_inputs.at(input_name))}});
  ASSERT_EQ(outputs.count("output"), 1u);
  const double error = testing::relative_error(outputs.at("output"),
                                               read_npy(source.reference_outputs.at("output")));
  std::cout << "[libtorch] " << GetParam() << ": error " << error << ", load "
            << model->load_timings().load_ms << " ms" << std::endl;
  EXPECT_LE(error, kMaxFp32Error);
}

INSTANTIATE_TEST_SUITE_P(Zoo, LibTorchZooModel,
                         ::testing::Values("resnet50", "mobilenet_v2", "efficientnet_b0",
                                           "encoder"));

TEST(LibTorchBackend, RunsDynamicBatchOfTwo) {
  // The flat opset-17 export of the same weights keeps a batch-2 reference.
  const std::string stem = testing::cache_dir() + "/models/mobilenet_v2_op17_dyn.batch2";
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2");
  const TensorMap outputs = model->run({{"input", read_npy(stem + ".input.npy")}});
  const Tensor& output = outputs.at("output");
  EXPECT_EQ(output.shape(), (Shape{2, 1000}));
  EXPECT_LE(testing::relative_error(output, read_npy(stem + ".output.npy")), kMaxFp32Error);
}

TEST(LibTorchBackend, UnfrozenModelAgreesWithFrozen) {
  BackendOptions options;
  options.settings["freeze"] = "0";
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2", options);
  EXPECT_EQ(model->configuration().at("frozen"), false);
  const ModelSource source = zoo_source("mobilenet_v2");
  const TensorMap outputs = model->run({{"input", read_npy(source.reference_inputs.at("input"))}});
  EXPECT_LE(testing::relative_error(outputs.at("output"),
                                    read_npy(source.reference_outputs.at("output"))),
            kMaxFp32Error);
}

TEST(LibTorchBackend, StagedRunReportsTimings) {
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2");
  EXPECT_TRUE(model->capabilities().out_of_process);  // PyTorch runs in a tuned worker
  EXPECT_FALSE(model->capabilities().node_timing);
  model->bind({{"input", testing::random_float_tensor({1, 3, 224, 224}, 7, 0.0f, 1.0f)}});
  EXPECT_GT(model->execute(), 0);
  const TensorMap outputs = model->fetch();
  EXPECT_EQ(outputs.at("output").shape(), (Shape{1, 1000}));
  EXPECT_GT(model->last_timings().execute_ns, 0);
  EXPECT_EQ(model->configuration().at("threads_used"), 2);
}

// In process (where the plugin itself answers), run() is stateless and may be
// called from several threads at once.
TEST(LibTorchBackend, InProcessRunsConcurrently) {
  const std::shared_ptr<Backend> backend = registry().get("libtorch", Placement::kInProcess);
  BackendOptions options;
  options.threads = 1;
  const std::unique_ptr<Model> model = backend->open(zoo_source("mobilenet_v2"), options);
  ASSERT_TRUE(model->capabilities().concurrent_run);
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 11, 0.0f, 1.0f);
  const Tensor expected = model->run({{"input", input}}).at("output");
  std::vector<Tensor> results(2);
  std::vector<std::thread> threads;
  for (Tensor& result : results)
    threads.emplace_back([&] { result = model->run({{"input", input}}).at("output"); });
  for (std::thread& thread : threads) thread.join();
  for (const Tensor& result : results) EXPECT_LE(testing::relative_error(result, expected), 1e-6);
}

TEST(LibTorchBackend, DescribesItsEnvironment) {
  const BackendInfo info = libtorch_backend()->info();
  EXPECT_TRUE(info.available);
  EXPECT_EQ(info.version.rfind("1.", 0), 0u) << info.version;
  EXPECT_EQ(info.devices.at(0), "cpu");
  EXPECT_FALSE(info.configuration.at("parallel_info").get<std::string>().empty());
  EXPECT_TRUE(info.configuration.at("environment").contains("OPENBLAS_CORETYPE"));
  EXPECT_TRUE(info.configuration.at("environment").contains("ATEN_CPU_CAPABILITY"));
}

TEST(LibTorchBackend, RejectsUnknownInputName) {
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2");
  expect_error(
      [&] {
        model->run({{"image", Tensor(DataType::kFloat32, {1, 3, 224, 224})}});
      },
      ErrorCode::kInvalidArgument, "'image' is not an input");
}

TEST(LibTorchBackend, RejectsWrongInputShape) {
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2");
  expect_error(
      [&] {
        model->run({{"input", Tensor(DataType::kFloat32, {1, 4, 224, 224})}});
      },
      ErrorCode::kInvalidArgument, "input 'input' has shape");
}

TEST(LibTorchBackend, RejectsWrongInputDtype) {
  const std::unique_ptr<Model> model = open_zoo("mobilenet_v2");
  expect_error(
      [&] {
        model->run({{"input", Tensor(DataType::kInt64, {1, 3, 224, 224})}});
      },
      ErrorCode::kInvalidArgument, "element type");
}

TEST(LibTorchBackend, RefusesNodeTiming) {
  BackendOptions options;
  options.node_timing = true;
  expect_error([&] { open_zoo("mobilenet_v2", options); }, ErrorCode::kUnsupported,
               "per-node timing");
}

TEST(LibTorchBackend, RejectsUnknownSetting) {
  BackendOptions options;
  options.settings["freze"] = "0";
  expect_error([&] { open_zoo("mobilenet_v2", options); }, ErrorCode::kInvalidArgument, "freze");
}

// A model directory holding `files` (name -> bytes) and a manifest naming
// `artifacts` (a JSON object text) with mobilenet_v2's inputs and outputs.
std::string write_model_dir(const std::string& artifacts,
                            const std::map<std::string, std::string>& files) {
  const std::string directory = testing::make_temp_dir("libtorch_backend_test");
  for (const auto& [name, bytes] : files) testing::write_file(directory + "/" + name, bytes);
  testing::write_file(directory + "/model.json", R"({"format": "inferlab-model", "version": 1,
    "name": "broken", "artifacts": )" + artifacts + R"(,
    "inputs": [{"name": "input", "dtype": "float32", "shape": ["batch", 3, 224, 224]}],
    "outputs": [{"name": "output", "dtype": "float32", "shape": ["batch", 1000]}]})");
  return directory;
}

TEST(LibTorchBackend, RefusesModelWithoutTorchScript) {
  const std::string directory = write_model_dir(R"({"onnx": "model.onnx"})", {{"model.onnx", "x"}});
  expect_error([&] { libtorch_backend()->open(ModelSource::resolve(directory), {}); },
               ErrorCode::kUnsupported, "artifacts.torchscript");
  fs::remove_all(directory);
}

TEST(LibTorchBackend, RejectsCorruptTorchScriptFile) {
  const std::string directory = write_model_dir(R"({"torchscript": "model.pt"})",
                                                {{"model.pt", "PK\x03\x04 not a zip archive"}});
  expect_error([&] { libtorch_backend()->open(ModelSource::resolve(directory), {}); },
               ErrorCode::kInvalidModel, "cannot load the TorchScript file");
  fs::remove_all(directory);
}

TEST(LibTorchBackend, RefusesBareTorchScriptFileWithoutManifest) {
  const ModelSource bare = ModelSource::resolve(zoo_dir("mobilenet_v2") + "/model.torchscript.pt");
  expect_error([&] { libtorch_backend()->open(bare, {}); }, ErrorCode::kInvalidArgument,
               "model.json");
}

}  // namespace
}  // namespace inferlab::backends
