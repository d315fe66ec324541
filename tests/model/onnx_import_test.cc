// The importer on good and bad files: parse faults, IR/opset/domain checks,
// the ONNX checker, tensor conversion (raw bytes moved out of the message
// after the checker), limits, real ONNX test models.
#include "inferlab/model/onnx_import.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/model/graph_dump.h"
#include "inferlab/model/onnx_convert.h"
#include "onnx_test_models.h"
#include "test_util.h"

namespace inferlab::model {
namespace {

using inferlab::testing::expect_error;
using inferlab::testing::make_add_relu_model;
using inferlab::testing::serialize;

const char* kConvModel =
    "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx";

class OnnxImport : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = inferlab::testing::make_temp_dir("inferlab-import"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    inferlab::testing::write_file(path, bytes);
    return path;
  }
  std::string dir_;
};

TEST_F(OnnxImport, ImportsInitializersNodesAndShapes) {
  const Model model = import_model_file(write("m.onnx", serialize(make_add_relu_model())));
  EXPECT_EQ(model.default_opset(), 13);
  EXPECT_EQ(model.ir_version, 8);
  const Graph& graph = *model.graph;
  ASSERT_EQ(graph.inputs.size(), 1u);
  EXPECT_EQ(graph.inputs[0].to_string(), "float[2, 3]");
  ASSERT_EQ(graph.initializers.count("w"), 1u);
  EXPECT_EQ(graph.initializers.at("w").data<float>()[5], 5.0f);
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.nodes[0].op_type, "Add");
  EXPECT_NE(dump_graph(model).find("add: Add(x, w) -> sum"), std::string::npos)
      << dump_graph(model);
}

TEST_F(OnnxImport, InitializerListedAsInputIsOverridableNotAnInput) {
  auto proto = make_add_relu_model();
  inferlab::testing::add_tensor_value(proto.mutable_graph()->add_input(), "w",
                                      onnx::TensorProto::FLOAT, {2, 3});
  const Model model = import_model_bytes(serialize(proto).data(), serialize(proto).size());
  ASSERT_EQ(model.graph->inputs.size(), 1u);
  EXPECT_EQ(model.graph->inputs[0].name, "x");
  ASSERT_EQ(model.graph->overridable_initializers.size(), 1u);
  EXPECT_EQ(model.graph->overridable_initializers[0].name, "w");
}

TEST_F(OnnxImport, RejectsEmptyFileNamingIt) {
  const std::string path = write("empty.onnx", "");
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel, {path, "empty file"});
}

TEST_F(OnnxImport, RejectsMissingFileNamingIt) {
  const std::string path = dir_ + "/nope.onnx";
  expect_error([&] { import_model_file(path); }, ErrorCode::kNotFound, {path, "not found"});
}

TEST_F(OnnxImport, RejectsRandomBytes) {
  std::string bytes;
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) {
    state = state * 1664525u + 1013904223u;
    bytes += static_cast<char>(state >> 24);
  }
  const std::string path = write("random.onnx", bytes);
  try {
    import_model_file(path);
    FAIL() << "random bytes imported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidModel) << e.what();
    EXPECT_NE(std::string(e.what()).find(path + ": not"), std::string::npos) << e.what();
  }
}

TEST_F(OnnxImport, RejectsTruncatedRealModel) {
  const std::string full = inferlab::testing::read_file(kConvModel);
  ASSERT_GT(full.size(), 100u);
  const std::string path = write("half.onnx", full.substr(0, full.size() / 2));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "not a valid ONNX model (truncated or corrupt)"});
}

// Every prefix of a real model is rejected, and the message says the file
// may be truncated (a prefix that still parses has lost opset_import).
TEST_F(OnnxImport, RejectsEveryPrefixOfARealModelSayingItMayBeTruncated) {
  const std::string full = inferlab::testing::read_file(kConvModel);
  for (size_t length = 1; length < full.size(); length += 7) {
    const std::string path = write("prefix.onnx", full.substr(0, length));
    try {
      import_model_file(path);
      FAIL() << "a " << length << "-byte prefix imported";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidModel) << e.what();
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
  }
}

TEST_F(OnnxImport, RejectsOpset6AsUnsupported) {
  const std::string path = write("old.onnx", serialize(make_add_relu_model(6)));
  expect_error([&] { import_model_file(path); }, ErrorCode::kUnsupported,
               {path, "opset 6 of the default ONNX domain is not supported"});
}

TEST_F(OnnxImport, RejectsUnsupportedIrVersion) {
  auto proto = make_add_relu_model();
  proto.set_ir_version(2);
  const std::string path = write("ir2.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kUnsupported, {path, "IR version 2"});
}

void add_opset_import(onnx::ModelProto& proto, const std::string& domain, int64_t version) {
  auto* import = proto.add_opset_import();
  import->set_domain(domain);
  import->set_version(version);
}

// Relu(x + w) followed by Foo (unknown to ONNX), com.microsoft's FusedConv
// and custom.domain's Bar.
onnx::ModelProto make_unknown_ops_model() {
  auto proto = make_add_relu_model();
  add_opset_import(proto, "com.microsoft", 1);
  add_opset_import(proto, "custom.domain", 2);
  onnx::GraphProto* graph = proto.mutable_graph();
  graph->mutable_node(1)->set_output(0, "r");
  inferlab::testing::add_node(graph, "Foo", {"r"}, {"f"}, "foo");
  inferlab::testing::add_node(graph, "FusedConv", {"f"}, {"c"}, "c1")->set_domain("com.microsoft");
  inferlab::testing::add_node(graph, "Bar", {"c"}, {"y"}, "bar")->set_domain("custom.domain");
  return proto;
}

TEST_F(OnnxImport, KeepsOpsOfAnyImportedDomainAndSkipsTheCheckerNamingUnknownOps) {
  const std::string path = write("unknown.onnx", serialize(make_unknown_ops_model()));
  const Model model = import_model_file(path);
  EXPECT_EQ(model.warnings,
            std::vector<std::string>{
                path + ": skipping the ONNX checker: operators unknown to ONNX 1.12: Foo, "
                       "com.microsoft.FusedConv, custom.domain.Bar"});
  EXPECT_EQ(model.opsets.at("com.microsoft"), 1);
  EXPECT_EQ(model.opsets.at("custom.domain"), 2);
  ASSERT_EQ(model.graph->nodes.size(), 5u);
  EXPECT_EQ(model.graph->nodes[3].domain, "com.microsoft");
  EXPECT_EQ(model.graph->nodes[4].domain, "custom.domain");
  EXPECT_EQ(model.graph->nodes[4].op_type, "Bar");
}

TEST_F(OnnxImport, RunsTheCheckerWhenEveryOpIsKnownToOnnx) {
  const std::string path = write("known.onnx", serialize(make_add_relu_model()));
  EXPECT_TRUE(import_model_file(path).warnings.empty());
}

TEST_F(OnnxImport, FindsUnknownOpsInsideSubgraphs) {
  auto proto = make_add_relu_model();
  onnx::GraphProto* graph = proto.mutable_graph();
  graph->mutable_node(1)->set_output(0, "r");
  inferlab::testing::add_tensor_value(graph->add_input(), "cond", onnx::TensorProto::BOOL, {});
  onnx::NodeProto* if_node = inferlab::testing::add_node(graph, "If", {"cond"}, {"y"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::AttributeProto* attribute = if_node->add_attribute();
    attribute->set_name(branch);
    attribute->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = attribute->mutable_g();
    body->set_name(branch);
    inferlab::testing::add_tensor_value(body->add_output(), "out", onnx::TensorProto::FLOAT,
                                        {2, 3});
    inferlab::testing::add_node(body, "Baz", {"r"}, {"out"}, std::string(branch) + "_baz");
  }
  const std::string path = write("nested.onnx", serialize(proto));
  const Model model = import_model_file(path);
  ASSERT_EQ(model.warnings.size(), 1u);
  EXPECT_NE(model.warnings[0].find("operators unknown to ONNX 1.12: Baz"), std::string::npos)
      << model.warnings[0];
  EXPECT_EQ(model.graph->nodes.back().op_type, "If");
}

TEST_F(OnnxImport, ValidatesTheGraphWhenTheCheckerIsSkipped) {
  auto proto = make_unknown_ops_model();
  proto.mutable_graph()->mutable_node(2)->set_input(0, "nowhere");  // Foo reads nothing defined
  const std::string path = write("dangling.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "node 'foo' (Foo) reads 'nowhere'"});
}

TEST_F(OnnxImport, RejectsNodeWhoseDomainIsNotImported) {
  auto proto = make_unknown_ops_model();
  proto.mutable_graph()->mutable_node(3)->set_domain("com.example");
  const std::string path = write("unimported.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "node 'c1' (FusedConv)", "domain 'com.example'", "does not import"});
}

TEST_F(OnnxImport, RejectsNodeInsideSubgraphWhoseDomainIsNotImported) {
  auto proto = make_add_relu_model();
  onnx::GraphProto* graph = proto.mutable_graph();
  graph->mutable_node(1)->set_output(0, "r");
  onnx::NodeProto* loop = inferlab::testing::add_node(graph, "Loop", {"", "", "r"}, {"y"}, "loop");
  onnx::AttributeProto* attribute = loop->add_attribute();
  attribute->set_name("body");
  attribute->set_type(onnx::AttributeProto::GRAPH);
  inferlab::testing::add_node(attribute->mutable_g(), "Step", {"r"}, {"s"}, "step")
      ->set_domain("org.missing");
  const std::string path = write("nested_domain.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "node 'step' (Step)", "domain 'org.missing'"});
}

TEST_F(OnnxImport, RejectsGraphInputWithUndefinedElementType) {
  auto proto = make_add_relu_model();
  proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(0);
  const std::string path = write("untyped.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "graph input 'x'", "undefined element type"});
}

TEST_F(OnnxImport, RejectsGraphInputWithNonTensorType) {
  auto proto = make_add_relu_model();
  auto* type = proto.mutable_graph()->mutable_input(0)->mutable_type();
  type->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  const std::string path = write("seq.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kUnsupported,
               {path, "graph input 'x'", "not a tensor"});
}

TEST_F(OnnxImport, CheckerFailureNamesFileAndReason) {
  auto proto = make_add_relu_model();
  proto.mutable_graph()->mutable_node(0)->add_input("x");  // Add with three inputs
  const std::string path = write("bad_arity.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "ONNX checker", "Add"});
}

TEST_F(OnnxImport, SkipsCheckerWithWarningForNewIrVersion) {
  auto proto = make_add_relu_model();
  proto.set_ir_version(9);
  const std::string path = write("ir9.onnx", serialize(proto));
  const Model model = import_model_file(path);
  EXPECT_EQ(model.ir_version, 9);
  ASSERT_EQ(model.warnings.size(), 1u);
  EXPECT_NE(model.warnings[0].find("IR version 9 is newer than the ONNX 1.12 checker"),
            std::string::npos)
      << model.warnings[0];
}

TEST_F(OnnxImport, RejectsTensorLargerThanMaxTensorBytes) {
  const std::string path = write("m.onnx", serialize(make_add_relu_model()));
  ImportOptions options;
  options.max_tensor_bytes = 16;
  expect_error([&] { import_model_file(path, options); }, ErrorCode::kLimitExceeded,
               {path, "initializer 'w'", "max_tensor_bytes = 16"});
}

TEST_F(OnnxImport, RejectsHugeDimsBeforeAllocating) {
  auto proto = make_add_relu_model();
  onnx::TensorProto* w = proto.mutable_graph()->mutable_initializer(0);
  w->set_dims(0, int64_t{1} << 40);
  w->set_dims(1, int64_t{1} << 40);
  const std::string path = write("huge.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kLimitExceeded,
               {path, "initializer 'w'", "overflow"});
}

TEST_F(OnnxImport, RejectsValueCountNotMatchingDims) {
  auto proto = make_add_relu_model();
  proto.mutable_graph()->mutable_initializer(0)->add_float_data(7.0f);
  const std::string path = write("count.onnx", serialize(proto));
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "initializer 'w'", "7 values", "need 6"});
}

TEST_F(OnnxImport, RejectsSparseInitializer) {
  auto proto = make_add_relu_model();
  auto* sparse = proto.mutable_graph()->add_sparse_initializer();
  sparse->mutable_values()->set_name("s");
  sparse->mutable_values()->set_data_type(onnx::TensorProto::FLOAT);
  const std::string path = write("sparse.onnx", serialize(proto));
  ImportOptions options;
  options.run_checker = false;
  expect_error([&] { import_model_file(path, options); }, ErrorCode::kUnsupported,
               {path, "sparse initializer 's'"});
}

TEST_F(OnnxImport, KeepsConstantNodesWithTheirTensorAttribute) {
  auto proto = make_add_relu_model();
  auto* graph = proto.mutable_graph();
  graph->mutable_node(0)->set_input(1, "c");
  auto* constant = graph->add_node();
  constant->set_op_type("Constant");
  constant->add_output("c");
  auto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT8);
  value->mutable_t()->add_dims(2);
  value->mutable_t()->add_int32_data(-3);
  value->mutable_t()->add_int32_data(4);
  ImportOptions options;
  options.run_checker = false;  // the Constant follows its reader in the file
  const std::string bytes = serialize(proto);
  const Model model = import_model_bytes(bytes.data(), bytes.size(), options);
  ASSERT_EQ(model.graph->nodes.size(), 3u);
  const Node& node = model.graph->nodes[0];
  EXPECT_EQ(node.op_type, "Constant");
  EXPECT_EQ(node.name, "Constant_2");
  const Tensor& tensor = node.attributes.at("value").t;
  EXPECT_EQ(tensor.dtype(), DataType::kInt8);
  EXPECT_EQ(tensor.data<int8_t>()[0], -3);
  EXPECT_EQ(tensor.data<int8_t>()[1], 4);
}

// A raw_data tensor: `count` floats 0.5, 1.5, ...
onnx::TensorProto raw_float_tensor(const std::string& name, int64_t count) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  tensor.add_dims(count);
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i) + 0.5f;
  tensor.set_raw_data(values.data(), values.size() * sizeof(float));
  return tensor;
}

TEST(OnnxConvert, DeferredRawDataIsCopiedOnlyWhenTakenAndTheFieldIsFreedThen) {
  const ConvertContext ctx{"test.onnx", {}, int64_t{1} << 30};
  onnx::TensorProto proto = raw_float_tensor("w", 1 << 18);
  std::vector<PendingRawData> pending;
  const Tensor tensor = tensor_from_proto_deferred(proto, ctx, "initializer 'w'", pending);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(tensor.shape(), (Shape{1 << 18}));
  EXPECT_EQ(proto.raw_data().size(), size_t{4} << 18);  // still there for the ONNX checker
  take_pending_raw_data(pending);
  EXPECT_TRUE(pending.empty());
  EXPECT_EQ(tensor.data<float>()[0], 0.5f);
  EXPECT_EQ(tensor.data<float>()[(1 << 18) - 1], static_cast<float>((1 << 18) - 1) + 0.5f);
  EXPECT_TRUE(proto.raw_data().empty());
  EXPECT_LT(proto.raw_data().capacity(), 64u);  // freed, not just cleared

  // Typed fields are converted at once, and a size mismatch is refused at once.
  onnx::TensorProto typed;
  typed.set_data_type(onnx::TensorProto::FLOAT);
  typed.add_dims(2);
  typed.add_float_data(1.0f);
  typed.add_float_data(2.0f);
  EXPECT_EQ(tensor_from_proto_deferred(typed, ctx, "t", pending).data<float>()[1], 2.0f);
  EXPECT_TRUE(pending.empty());
  onnx::TensorProto short_raw = raw_float_tensor("s", 3);
  short_raw.set_dims(0, 4);
  expect_error([&] { tensor_from_proto_deferred(short_raw, ctx, "initializer 's'", pending); },
               ErrorCode::kInvalidModel, {"test.onnx", "initializer 's'", "12 bytes of raw_data"});
  EXPECT_TRUE(pending.empty());
}

TEST_F(OnnxImport, RawDataOfInitializersAndConstantsArrivesWholeThroughTheChecker) {
  auto proto = make_add_relu_model();
  onnx::GraphProto* graph = proto.mutable_graph();
  *graph->add_initializer() = raw_float_tensor("big", 100000);
  onnx::TensorProto* flags = graph->add_initializer();
  flags->set_name("flags");
  flags->set_data_type(onnx::TensorProto::BOOL);
  flags->add_dims(3);
  flags->set_raw_data(std::string("\x00\x02\x01", 3));
  onnx::NodeProto* constant = inferlab::testing::add_node(graph, "Constant", {}, {"c"}, "const");
  onnx::AttributeProto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  *value->mutable_t() = raw_float_tensor("", 5);
  const std::string path = write("raw.onnx", serialize(proto));
  const std::string bytes = serialize(proto);
  for (const Model& model :
       {import_model_file(path), import_model_bytes(bytes.data(), bytes.size())}) {
    EXPECT_TRUE(model.warnings.empty());  // the checker ran and saw the data
    const Tensor& big = model.graph->initializers.at("big");
    EXPECT_EQ(big.data<float>()[99999], 99999.5f);
    const Tensor& bools = model.graph->initializers.at("flags");
    EXPECT_EQ(bools.data<bool>()[0], false);
    EXPECT_EQ(bools.data<bool>()[1], true);
    EXPECT_EQ(bools.data<bool>()[2], true);
    EXPECT_EQ(model.graph->initializers.at("w").data<float>()[5], 5.0f);
    for (const Node& node : model.graph->nodes) {
      if (node.op_type == "Constant")
        EXPECT_EQ(node.attributes.at("value").t.data<float>()[4], 4.5f);
    }
  }
}

TEST_F(OnnxImport, ImportsRealConvTestModel) {
  const Model model = import_model_file(kConvModel);
  ASSERT_EQ(model.graph->nodes.size(), 1u);
  EXPECT_EQ(model.graph->nodes[0].op_type, "Conv");
  EXPECT_FALSE(model.graph->nodes[0].name.empty());
  EXPECT_EQ(model.graph->nodes[0].attributes.at("strides").ints, (std::vector<int64_t>{2, 2}));
}

}  // namespace
}  // namespace inferlab::model
