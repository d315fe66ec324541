// Session: loading (unsupported-operator listing, input shapes), running,
// input validation messages, bind-then-run, and If/Loop with outer-scope values.
#include "inferlab/runtime/session.h"

#include <gtest/gtest.h>

#include "runtime_test_models.h"

namespace inferlab::runtime {
namespace {

using testing::add_graph_attribute;
using testing::add_graph_node;
using testing::add_int_attribute;
using testing::load_proto;
using testing::make_add_relu_proto;
using testing::make_model_proto;
using testing::set_tensor_type;

// Runs `action`, expecting an Error of `code` whose message holds every part.
template <typename Action>
void expect_error(Action action, ErrorCode code, const std::vector<std::string>& parts) {
  try {
    action();
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "'" << part << "' not in: " << error.what();
    }
  }
}

Tensor floats(const std::vector<float>& values, Shape shape) {
  return Tensor::from_vector<float>(values, std::move(shape));
}

TEST(Session, RunsAddReluAndFreesNothingTheCallerHolds) {
  Session session = load_proto(make_add_relu_proto());
  const Tensor x = floats({-5, 0, 1, 2, -3, 4}, {2, 3});
  TensorMap outputs = session.run({{"x", x}});
  const Tensor& y = outputs.at("y");
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  const std::vector<float> expected = {0, 1, 3, 2, 0, 6};
  for (int64_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(y.data<float>()[i], expected[i]);
  EXPECT_FLOAT_EQ(x.data<float>()[0], -5.0f);
  // A second run gives the same answer (no state leaks between runs).
  EXPECT_TRUE(session.run({{"x", x}}).at("y").equals(y));
}

TEST(Session, ListsEveryUnsupportedOperatorWithItsNodes) {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  add_graph_node(graph, "Foo", {"x"}, {"a"}, "a");
  add_graph_node(graph, "Relu", {"a"}, {"b"}, "relu");
  add_graph_node(graph, "Foo", {"b"}, {"c"}, "b");
  add_graph_node(graph, "Bar", {"c"}, {"y"}, "c");
  expect_error(
      [&] { load_proto(model); }, ErrorCode::kUnsupported,
      {"2 unsupported operators", "Foo (opset 13, nodes 'a', 'b')", "Bar (opset 13, node 'c')"});
}

// A shape read from data is refused before any memory is taken: 2^40 floats
// would otherwise fail inside the allocator (or exhaust the machine).
TEST(Session, RefusesAnOutputOverTheLimitBeforeAllocatingIt) {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "dims", onnx::TensorProto::INT64, {2});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {-1, -1});
  add_graph_node(graph, "ConstantOfShape", {"dims"}, {"y"}, "fill");
  SessionOptions options;
  options.max_tensor_bytes = int64_t{1} << 20;
  Session session = load_proto(model, options);
  const Tensor huge = Tensor::from_vector<int64_t>({int64_t{1} << 20, int64_t{1} << 20}, {2});
  expect_error(
      [&] {
        session.run({{"dims", huge}});
      },
      ErrorCode::kLimitExceeded,
      {"ConstantOfShape node 'fill'", "[1048576, 1048576]", "over the limit of 1048576"});
  const Tensor small = Tensor::from_vector<int64_t>({2, 3}, {2});
  EXPECT_EQ(session.run({{"dims", small}}).at("y").shape(), (Shape{2, 3}));
}

TEST(Session, RejectsMissingInput) {
  Session session = load_proto(make_add_relu_proto());
  expect_error([&] { session.run({}); }, ErrorCode::kInvalidArgument,
               {"missing input 'x'", "float[batch, 3]"});
}

TEST(Session, RejectsUnknownInputName) {
  Session session = load_proto(make_add_relu_proto());
  expect_error(
      [&] {
        session.run({{"x", floats({1, 2, 3}, {1, 3})}, {"z", floats({1}, {1})}});
      },
      ErrorCode::kInvalidArgument, {"no input named 'z'", "x (float[batch, 3])"});
}

TEST(Session, RejectsWrongDtype) {
  Session session = load_proto(make_add_relu_proto());
  const Tensor x = Tensor::from_vector<int64_t>({1, 2, 3}, {1, 3});
  expect_error(
      [&] {
        session.run({{"x", x}});
      },
      ErrorCode::kInvalidArgument, {"input 'x'", "expected float", "got int64"});
}

TEST(Session, RejectsWrongRankAndWrongStaticDim) {
  Session session = load_proto(make_add_relu_proto());
  expect_error(
      [&] {
        session.run({{"x", floats({1, 2, 3}, {3})}});
      },
      ErrorCode::kInvalidArgument, {"input 'x'", "expected rank 2", "got shape [3]"});
  expect_error(
      [&] {
        session.run({{"x", floats({1, 2, 3, 4}, {1, 4})}});
      },
      ErrorCode::kInvalidArgument, {"input 'x'", "dimension 1 is 4, expected 3"});
}

TEST(Session, FixesSymbolicDimsFromOptions) {
  SessionOptions options;
  options.input_shapes["x"] = {2, 3};
  Session session = load_proto(make_add_relu_proto(), options);
  EXPECT_EQ(session.inputs()[0].to_string(), "float[2, 3]");
  EXPECT_EQ(session.outputs()[0].to_string(), "float[2, 3]");
  EXPECT_EQ(session.value_infos().at("sum").to_string(), "float[2, 3]");
  expect_error(
      [&] {
        session.run({{"x", floats({1, 2, 3}, {1, 3})}});
      },
      ErrorCode::kInvalidArgument, {"dimension 0 is 1, expected 2"});
}

TEST(Session, RejectsInputShapesThatContradictTheModel) {
  SessionOptions wrong_dim;
  wrong_dim.input_shapes["x"] = {2, 4};
  expect_error([&] { load_proto(make_add_relu_proto(), wrong_dim); }, ErrorCode::kInvalidArgument,
               {"input 'x'", "dimension 1 is fixed at 3"});
  SessionOptions wrong_rank;
  wrong_rank.input_shapes["x"] = {6};
  expect_error([&] { load_proto(make_add_relu_proto(), wrong_rank); }, ErrorCode::kInvalidArgument,
               {"input 'x'", "rank 1"});
  SessionOptions wrong_name;
  wrong_name.input_shapes["nope"] = {1, 3};
  expect_error([&] { load_proto(make_add_relu_proto(), wrong_name); }, ErrorCode::kInvalidArgument,
               {"'nope'", "not an input"});
}

TEST(Session, BindWritesIntoCallerOwnedOutput) {
  Session session = load_proto(make_add_relu_proto());
  std::vector<float> storage(3, -1.0f);
  const Tensor y = Tensor::borrow(DataType::kFloat32, {1, 3}, storage.data());
  session.bind({{"x", floats({1, -9, 1}, {1, 3})}}, {{"y", y}});
  session.run();
  EXPECT_EQ(storage, (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(session.bound_outputs().at("y").raw_data(), storage.data());
}

TEST(Session, BindRejectsOutputOfTheWrongShapeAfterRunning) {
  Session session = load_proto(make_add_relu_proto());
  std::vector<float> storage(6);
  const Tensor y = Tensor::borrow(DataType::kFloat32, {2, 3}, storage.data());
  // Refused at bind() when the output shape is known for these inputs (a
  // session specialized to them), else at run().
  expect_error(
      [&] {
        session.bind({{"x", floats({1, 2, 3}, {1, 3})}}, {{"y", y}});
        session.run();
      },
      ErrorCode::kInvalidArgument, {"output 'y'", "[2, 3]", "[1, 3]"});
}

// If(cond): then = x * outer_scale, else = x; the branches read x and scale
// from the enclosing graph.
onnx::ModelProto make_if_proto() {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "cond", onnx::TensorProto::BOOL, {});
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  testing::add_float_initializer(graph, "scale", {2}, {10.0f, 100.0f});
  onnx::NodeProto* node = add_graph_node(graph, "If", {"cond"}, {"y"}, "if");
  onnx::GraphProto* then_branch = add_graph_attribute(node, "then_branch");
  set_tensor_type(then_branch->add_output(), "scaled", onnx::TensorProto::FLOAT, {2});
  add_graph_node(then_branch, "Mul", {"x", "scale"}, {"scaled"}, "mul");
  onnx::GraphProto* else_branch = add_graph_attribute(node, "else_branch");
  set_tensor_type(else_branch->add_output(), "same", onnx::TensorProto::FLOAT, {2});
  add_graph_node(else_branch, "Identity", {"x"}, {"same"}, "identity");
  return model;
}

TEST(Session, RunsIfBranchesReadingOuterScopeValues) {
  Session session = load_proto(make_if_proto());
  const Tensor x = floats({1, 2}, {2});
  const Tensor yes = Tensor::scalar<bool>(true);
  const Tensor no = Tensor::scalar<bool>(false);
  const Tensor then_y = session.run({{"cond", yes}, {"x", x}}).at("y");
  EXPECT_FLOAT_EQ(then_y.data<float>()[1], 200.0f);
  const Tensor else_y = session.run({{"cond", no}, {"x", x}}).at("y");
  EXPECT_FLOAT_EQ(else_y.data<float>()[1], 2.0f);
}

// Loop M times: acc += step (step from the enclosing graph); scan out acc.
onnx::ModelProto make_loop_proto() {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "trips", onnx::TensorProto::INT64, {});
  set_tensor_type(graph->add_input(), "start", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(graph->add_output(), "final", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(graph->add_output(), "history", onnx::TensorProto::FLOAT, {-1, 1}, "n");
  testing::add_float_initializer(graph, "step", {1}, {2.5f});
  onnx::NodeProto* node =
      add_graph_node(graph, "Loop", {"trips", "", "start"}, {"final", "history"}, "loop");
  onnx::GraphProto* body = add_graph_attribute(node, "body");
  set_tensor_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_tensor_type(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_input(), "acc_in", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_output(), "acc_out", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(body->add_output(), "scan", onnx::TensorProto::FLOAT, {1});
  add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  add_graph_node(body, "Add", {"acc_in", "step"}, {"acc_out"}, "accumulate");
  add_graph_node(body, "Identity", {"acc_out"}, {"scan"}, "record");
  return model;
}

TEST(Session, RunsLoopWithCarriedAndScanOutputs) {
  Session session = load_proto(make_loop_proto());
  const TensorMap outputs =
      session.run({{"trips", Tensor::scalar<int64_t>(3)}, {"start", floats({1.0f}, {1})}});
  EXPECT_FLOAT_EQ(outputs.at("final").data<float>()[0], 8.5f);
  const Tensor& history = outputs.at("history");
  ASSERT_EQ(history.shape(), (Shape{3, 1}));
  EXPECT_FLOAT_EQ(history.data<float>()[0], 3.5f);
  EXPECT_FLOAT_EQ(history.data<float>()[2], 8.5f);
}

// Loop M times, scanning out an int64 [2, 3] per iteration (from the
// enclosing graph) and carrying x along.
onnx::ModelProto make_int64_scan_loop_proto() {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "trips", onnx::TensorProto::INT64, {});
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(graph->add_output(), "x_out", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(graph->add_output(), "ids_out", onnx::TensorProto::INT64, {-1, 2, 3}, "n");
  onnx::TensorProto* ids = graph->add_initializer();
  ids->set_name("ids");
  ids->set_data_type(onnx::TensorProto::INT64);
  ids->add_dims(2);
  ids->add_dims(3);
  for (int64_t i = 0; i < 6; ++i) ids->add_int64_data(i);
  onnx::NodeProto* node =
      add_graph_node(graph, "Loop", {"trips", "", "x"}, {"x_out", "ids_out"}, "loop");
  onnx::GraphProto* body = add_graph_attribute(node, "body");
  set_tensor_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_tensor_type(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_input(), "x_in", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_output(), "x_next", onnx::TensorProto::FLOAT, {1});
  set_tensor_type(body->add_output(), "scan", onnx::TensorProto::INT64, {2, 3});
  add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  add_graph_node(body, "Identity", {"x_in"}, {"x_next"}, "carry");
  add_graph_node(body, "Identity", {"ids"}, {"scan"}, "record");
  return model;
}

TEST(Session, ZeroTripLoopGivesScanOutputsTheBodysTypeAndShape) {
  Session session = load_proto(make_int64_scan_loop_proto());
  const Tensor x = floats({7.0f}, {1});
  const TensorMap none = session.run({{"trips", Tensor::scalar<int64_t>(0)}, {"x", x}});
  EXPECT_FLOAT_EQ(none.at("x_out").data<float>()[0], 7.0f);
  const Tensor& empty = none.at("ids_out");
  EXPECT_EQ(empty.dtype(), DataType::kInt64);
  EXPECT_EQ(empty.shape(), (Shape{0, 2, 3}));
  // With iterations the stacked values agree with the empty case's type.
  const Tensor twice = session.run({{"trips", Tensor::scalar<int64_t>(2)}, {"x", x}}).at("ids_out");
  EXPECT_EQ(twice.dtype(), DataType::kInt64);
  EXPECT_EQ(twice.shape(), (Shape{2, 2, 3}));
  EXPECT_EQ(twice.data<int64_t>()[11], 5);
}

TEST(Session, ZeroTripLoopWithSymbolicBodyShapeKeepsTheBodysType) {
  onnx::ModelProto model = make_int64_scan_loop_proto();
  onnx::GraphProto* body =
      model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
  body->mutable_output(2)->Clear();
  set_tensor_type(body->mutable_output(2), "scan", onnx::TensorProto::INT64, {-1, 3}, "rows");
  Session session = load_proto(model);
  const Tensor empty =
      session.run({{"trips", Tensor::scalar<int64_t>(0)}, {"x", floats({1.0f}, {1})}})
          .at("ids_out");
  EXPECT_EQ(empty.dtype(), DataType::kInt64);
  EXPECT_EQ(empty.numel(), 0);
}

}  // namespace
}  // namespace inferlab::runtime
