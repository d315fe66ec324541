// The native backend through the Backend interface: same results as the
// Session it wraps, staged and one-call runs agree, intermediate values and
// per-node timing events come back, bad inputs are clear errors, and the
// denormals setting is reported and checked.
#include <gtest/gtest.h>

#include <set>

#include "inferlab/backends/native_backend.h"
#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

std::string zoo_model(const std::string& name) {
  return testing::cache_dir() + "/models/" + name + ".onnx";
}

TEST(NativeBackend, MatchesPyTorchOnMobileNet) {
  auto backend = make_native_backend();
  auto model = backend->open(ModelSource::resolve(zoo_model("mobilenet_v2_op17")), {});
  const Tensor input = read_npy(testing::cache_dir() + "/models/mobilenet_v2_op17.input.npy");
  const Tensor reference = read_npy(testing::cache_dir() + "/models/mobilenet_v2_op17.output.npy");
  const TensorMap outputs = model->run({{"input", input}});
  EXPECT_LE(testing::relative_error(outputs.at("output"), reference), 1e-4);
  EXPECT_GT(model->last_timings().execute_ns, 0);
  EXPECT_GT(model->load_timings().load_ms, 0.0);
}

TEST(NativeBackend, StagedRunEqualsOneCallRun) {
  auto model =
      make_native_backend()->open(ModelSource::resolve(zoo_model("mobilenet_v2_op17")), {});
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 7, 0.0f, 1.0f);
  const TensorMap once = model->run({{"input", input}});
  model->bind({{"input", input}});
  EXPECT_GT(model->execute(), 0);
  const TensorMap staged = model->fetch();
  EXPECT_TRUE(staged.at("output").equals(once.at("output")));
}

TEST(NativeBackend, ReturnsIntermediateValuesAsExtraOutputs) {
  const std::string path = zoo_model("resnet50_op17");
  // Level 2: its values are the imported graph's (level 3's layout pass adds
  // channels-last copies under new names).
  runtime::SessionOptions level2;
  level2.opt_level = 2;
  runtime::Session session = runtime::Session::load(path, level2);
  const std::string intermediate = session.model().graph->nodes.at(2).outputs.at(0);
  BackendOptions options;
  options.extra_outputs = {intermediate};
  auto model = make_native_backend()->open(ModelSource::resolve(path), options);
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 3, 0.0f, 1.0f);
  const TensorMap outputs = model->run({{"input", input}});
  ASSERT_EQ(outputs.count(intermediate), 1u);
  EXPECT_GT(outputs.at(intermediate).numel(), 0);
  // The level-2 session lays activations out differently: FP32 tolerance.
  EXPECT_LE(
      testing::relative_error(outputs.at("output"), session.run({{"input", input}}).at("output")),
      1e-5);
}

TEST(NativeBackend, RejectsAnExtraOutputThatIsNotAValue) {
  BackendOptions options;
  options.extra_outputs = {"no_such_value"};
  try {
    make_native_backend()->open(ModelSource::resolve(zoo_model("mobilenet_v2_op17")), options);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no_such_value"), std::string::npos);
  }
}

TEST(NativeBackend, NodeTimingEventsNameEveryExecutedNode) {
  const std::string path = zoo_model("mobilenet_v2_op17");
  BackendOptions options;
  options.node_timing = true;
  auto model = make_native_backend()->open(ModelSource::resolve(path), options);
  model->run({{"input", testing::random_float_tensor({1, 3, 224, 224}, 1, 0.0f, 1.0f)}});
  const std::vector<NodeEvent> events = model->node_events();
  runtime::Session session = runtime::Session::load(path);
  std::set<std::string> graph_nodes;
  for (const model::Node& node : session.model().graph->nodes) graph_nodes.insert(node.name);
  ASSERT_FALSE(events.empty());
  int64_t total_ns = 0;
  for (const NodeEvent& event : events) {
    EXPECT_EQ(graph_nodes.count(event.node_name), 1u) << event.node_name;
    EXPECT_FALSE(event.op_type.empty());
    total_ns += event.duration_ns;
  }
  EXPECT_LE(total_ns, model->last_timings().execute_ns);
}

TEST(NativeBackend, WrongInputsAreErrorsNamingTheInput) {
  auto model =
      make_native_backend()->open(ModelSource::resolve(zoo_model("mobilenet_v2_op17")), {});
  const Tensor good = testing::random_float_tensor({1, 3, 224, 224}, 1);
  const auto expect_error = [&](const TensorMap& inputs, const std::string& fragment) {
    try {
      model->run(inputs);
      ADD_FAILURE() << "expected an error containing " << fragment;
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  expect_error({{"image", good}}, "'image' is not an input");
  expect_error({}, "input 'input'");
  expect_error({{"input", testing::random_float_tensor({1, 3, 100, 224}, 1)}},
               "has shape [1, 3, 100, 224]");
  expect_error({{"input", Tensor(DataType::kInt64, {1, 3, 224, 224})}}, "element type int64");
}

TEST(NativeBackend, RefusesWhatItCannotDoByName) {
  auto backend = make_native_backend();
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  BackendOptions fp16;
  fp16.precision = "fp16";
  EXPECT_THROW(backend->open(source, fp16), Error);
  BackendOptions cuda;
  cuda.device = "cuda";
  EXPECT_THROW(backend->open(source, cuda), Error);
  BackendOptions setting;
  setting.settings["mode"] = "x";
  EXPECT_THROW(backend->open(source, setting), Error);
  BackendOptions denormals;
  denormals.settings["denormals"] = "sometimes";
  try {
    backend->open(source, denormals);
    FAIL() << "denormals=sometimes was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("denormals is 'sometimes'"), std::string::npos)
        << error.what();
  }
}

// Denormals are flushed unless the denormals setting keeps them; the
// configuration says which.
TEST(NativeBackend, ReportsWhetherItFlushesDenormals) {
  auto backend = make_native_backend();
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  EXPECT_EQ(backend->open(source, {})->configuration().at("denormals"), "flush");
  BackendOptions keep;
  keep.settings["denormals"] = "keep";
  EXPECT_EQ(backend->open(source, keep)->configuration().at("denormals"), "keep");
}

// Reports say what ran: nodes by the kernel library computing them (every
// node counted once; resnet50's convolutions on oneDNN), oneDNN's version,
// and a thread request of 0 as the count it resolved to.
TEST(NativeBackend, ConfigurationNamesTheKernelsAndTheThreads) {
  auto model = make_native_backend()->open(ModelSource::resolve(zoo_model("resnet50_op17")), {});
  model->run({{"input", testing::random_float_tensor({1, 3, 224, 224}, 8, 0.0f, 1.0f)}});
  const nlohmann::json configuration = model->configuration();
  const nlohmann::json& kernels = configuration.at("kernels");
  int64_t nodes = 0;
  for (const auto& [library, count] : kernels.items()) nodes += count.get<int64_t>();
  EXPECT_EQ(nodes, configuration.at("optimization").at("nodes_after").get<int64_t>());
  EXPECT_GE(kernels.value("oneDNN", 0), 53) << kernels.dump();
  EXPECT_FALSE(configuration.at("onednn").at("version").get<std::string>().empty());
  EXPECT_EQ(configuration.at("threads_requested"), 0);
  const int used = configuration.at("threads_used").get<int>();
  EXPECT_GT(used, 0);
  EXPECT_EQ(configuration.at("threads"), std::to_string(used) + " (one per core)");
  const nlohmann::json info = make_native_backend()->info().configuration.at("kernels");
  EXPECT_TRUE(info.contains("oneDNN") && info.contains("InferLab") && info.contains("reference"))
      << info.dump();
}

}  // namespace
}  // namespace inferlab::backends
