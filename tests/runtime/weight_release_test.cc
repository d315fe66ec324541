// Prepacked weights are held once: when a plan is built, a weight that every
// node reading it holds prepacked (oneDNN's layout, in the node cache) is
// released from the session, its results unchanged bit for bit; a run
// without a plan rebuilds it exactly; a plan for new shapes packs from the
// copy; a weight some node reads directly stays.
#include <gtest/gtest.h>

#include "inferlab/model/onnx_import.h"
#include "inferlab/runtime/session.h"
#include "runtime_test_models.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

using testing::add_graph_node;
using testing::add_int_attribute;
using testing::load_proto;
using testing::make_model_proto;
using testing::set_tensor_type;

void add_initializer(onnx::GraphProto* graph, const std::string& name, const Tensor& value) {
  onnx::TensorProto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : value.shape()) tensor->add_dims(dim);
  tensor->set_raw_data(value.raw_data(), value.nbytes());
}

const Tensor kWeights = testing::random_float_tensor({16, 24}, 1);

// y = x W: x float[batch, 16], W [16, 24]. With `direct_reader`, also
// z = W + x2 (x2 float[16, 24]): an Add reads W itself.
onnx::ModelProto make_matmul_proto(bool direct_reader = false) {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {-1, 16});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 24});
  add_initializer(graph, "W", kWeights);
  add_graph_node(graph, "MatMul", {"x", "W"}, {"y"}, "matmul");
  if (direct_reader) {
    set_tensor_type(graph->add_input(), "x2", onnx::TensorProto::FLOAT, {16, 24});
    set_tensor_type(graph->add_output(), "z", onnx::TensorProto::FLOAT, {16, 24});
    add_graph_node(graph, "Add", {"W", "x2"}, {"z"}, "add");
  }
  return model;
}

// y = Conv(x, W, B) with 2 groups and padding 1: x float[1, 4, 9, 9],
// W [6, 2, 3, 3]. B is also a graph input, so a caller may override it.
onnx::ModelProto make_conv_proto() {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {1, 4, 9, 9});
  set_tensor_type(graph->add_input(), "B", onnx::TensorProto::FLOAT, {6});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {1, 6, 9, 9});
  add_initializer(graph, "W", testing::random_float_tensor({6, 2, 3, 3}, 2));
  add_initializer(graph, "B", testing::random_float_tensor({6}, 3));
  onnx::NodeProto* conv = add_graph_node(graph, "Conv", {"x", "W", "B"}, {"y"}, "conv");
  add_int_attribute(conv, "group", 2);
  onnx::AttributeProto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  return model;
}

// Opt level 0: the graph runs as built.
SessionOptions as_built() {
  SessionOptions options;
  options.opt_level = 0;
  options.threads = 1;
  return options;
}

TEST(WeightRelease, APlannedRunReleasesAWeightEveryReaderHoldsPrepacked) {
  Session session = load_proto(make_matmul_proto(), as_built());
  const WeightMemory loaded = session.weight_memory();
  EXPECT_EQ(loaded.resident_count, 1);
  EXPECT_EQ(loaded.resident_bytes, 16 * 24 * 4);
  EXPECT_EQ(loaded.released_count, 0);
  EXPECT_EQ(loaded.packed_bytes, 0);

  session.run({{"x", testing::random_float_tensor({2, 16}, 4)}});
  const WeightMemory planned = session.weight_memory();
  EXPECT_EQ(planned.resident_count, 0);
  EXPECT_EQ(planned.resident_bytes, 0);
  EXPECT_EQ(planned.released_count, 1);
  EXPECT_EQ(planned.released_bytes, 16 * 24 * 4);
  EXPECT_GE(planned.packed_bytes, 16 * 24 * 4);
  // The model keeps a stand-in: type and shape, no data.
  const Tensor& stand_in = session.model().graph->initializers.at("W");
  EXPECT_FALSE(stand_in.has_data());
  EXPECT_EQ(stand_in.shape(), (Shape{16, 24}));
  // A copy to save or export has it whole; the session keeps it released.
  EXPECT_TRUE(session.model_with_weights().graph->initializers.at("W").equals(kWeights));
  EXPECT_EQ(session.weight_memory().released_count, 1);
  EXPECT_FALSE(session.model().graph->initializers.at("W").has_data());
}

TEST(WeightRelease, ReleasingChangesNoResult) {
  // The same MatMul, in a session that must keep W (an Add reads it): the
  // packed copy, and so every bit of y, is the same.
  Session released = load_proto(make_matmul_proto(), as_built());
  Session kept = load_proto(make_matmul_proto(true), as_built());
  const Tensor x = testing::random_float_tensor({3, 16}, 5);
  const Tensor x2 = testing::random_float_tensor({16, 24}, 6);
  for (int run = 0; run < 2; ++run) {
    const Tensor y = released.run({{"x", x}}).at("y");
    const TensorMap both = kept.run({{"x", x}, {"x2", x2}});
    EXPECT_TRUE(y.equals(both.at("y"))) << "run " << run;
  }
  EXPECT_EQ(released.weight_memory().released_count, 1);
  EXPECT_EQ(kept.weight_memory().released_count, 0);
  EXPECT_EQ(kept.weight_memory().resident_count, 1);
  EXPECT_TRUE(kept.model().graph->initializers.at("W").equals(kWeights));
}

TEST(WeightRelease, APlanForNewShapesPacksFromTheCopyWithTheSameResults) {
  // Batch 1 first (W released), then batch 5 from the packed copy; against
  // a session whose first plan is batch 5, packed from the file's W.
  Session first_small = load_proto(make_matmul_proto(), as_built());
  Session first_large = load_proto(make_matmul_proto(), as_built());
  const Tensor small = testing::random_float_tensor({1, 16}, 7);
  const Tensor large = testing::random_float_tensor({5, 16}, 8);
  first_small.run({{"x", small}});
  ASSERT_EQ(first_small.weight_memory().released_count, 1);
  const Tensor y = first_small.run({{"x", large}}).at("y");
  EXPECT_EQ(first_small.plans_built(), 2);
  EXPECT_EQ(first_small.weight_memory().released_count, 1);
  EXPECT_TRUE(y.equals(first_large.run({{"x", large}}).at("y")));
}

TEST(WeightRelease, ARunWithoutAPlanRebuildsTheOriginalBitForBitAndKeepsIt) {
  const onnx::ModelProto proto = make_conv_proto();
  const std::string bytes = proto.SerializeAsString();
  const model::Model file = model::import_model_bytes(bytes.data(), bytes.size());
  const Tensor& weights = file.graph->initializers.at("W");
  const Tensor& bias = file.graph->initializers.at("B");
  const Tensor x = testing::random_float_tensor({1, 4, 9, 9}, 9);

  Session session = load_proto(proto, as_built());
  session.run({{"x", x}});
  ASSERT_EQ(session.weight_memory().released_count, 1);  // W; B is read as it is
  EXPECT_TRUE(session.model().graph->initializers.at("B").has_data());

  // Overriding an initializer runs without a plan: the reference kernel
  // reads W, rebuilt from the convolution's blocked copy.
  const Tensor unplanned = session.run({{"x", x}, {"B", bias}}).at("y");
  EXPECT_EQ(session.weight_memory().released_count, 0);
  EXPECT_TRUE(session.model().graph->initializers.at("W").equals(weights));
  SessionOptions no_plans = as_built();
  no_plans.max_cached_plans = 0;
  Session reference = load_proto(proto, no_plans);
  EXPECT_TRUE(unplanned.equals(reference.run({{"x", x}}).at("y")));

  // From then on the session keeps its weights.
  session.run({{"x", x}});
  EXPECT_EQ(session.weight_memory().released_count, 0);
  EXPECT_EQ(session.weight_memory().resident_count, 2);
}

TEST(WeightRelease, AWeightANodeReadsDirectlyStays) {
  Session session = load_proto(make_matmul_proto(true), as_built());
  session.run({{"x", testing::random_float_tensor({2, 16}, 10)},
               {"x2", testing::random_float_tensor({16, 24}, 11)}});
  const WeightMemory memory = session.weight_memory();
  EXPECT_EQ(memory.released_count, 0);
  EXPECT_EQ(memory.resident_count, 1);
  EXPECT_GT(memory.packed_bytes, 0);  // the MatMul packed it all the same
}

TEST(WeightRelease, SessionsWithoutPlansReleaseNothing) {
  SessionOptions options = as_built();
  options.max_cached_plans = 0;
  Session session = load_proto(make_matmul_proto(), options);
  session.run({{"x", testing::random_float_tensor({2, 16}, 12)}});
  EXPECT_EQ(session.weight_memory().released_count, 0);
  EXPECT_EQ(session.weight_memory().packed_bytes, 0);
}

}  // namespace
}  // namespace inferlab::runtime
