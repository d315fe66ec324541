// The operator check: every operator without a kernel, of any domain and in
// subgraphs too, is listed in one error from Session::load, with its nodes;
// find_unsupported_ops reports the same for callers that list rather than fail.
#include "inferlab/runtime/op_support.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/model/onnx_import.h"
#include "runtime_test_models.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

using testing::add_graph_attribute;
using testing::add_graph_node;
using testing::make_model_proto;
using testing::set_tensor_type;

void add_opset_import(onnx::ModelProto& model, const std::string& domain, int64_t version) {
  auto* import = model.add_opset_import();
  import->set_domain(domain);
  import->set_version(version);
}

// Foo twice, com.microsoft's FusedConv, custom.domain's Bar, and a second
// Bar inside a Loop body.
onnx::ModelProto make_mixed_domain_proto() {
  onnx::ModelProto model = make_model_proto();
  add_opset_import(model, "com.microsoft", 1);
  add_opset_import(model, "custom.domain", 3);
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  add_graph_node(graph, "Foo", {"x"}, {"a"}, "foo1");
  add_graph_node(graph, "FusedConv", {"a"}, {"b"}, "c1")->set_domain("com.microsoft");
  add_graph_node(graph, "Foo", {"b"}, {"c"}, "foo2");
  add_graph_node(graph, "Bar", {"c"}, {"d"}, "bar1")->set_domain("custom.domain");
  onnx::NodeProto* loop = add_graph_node(graph, "Loop", {"", "", "d"}, {"y"}, "loop");
  onnx::GraphProto* body = add_graph_attribute(loop, "body");
  set_tensor_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_tensor_type(body->add_input(), "cond_in", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_input(), "v_in", onnx::TensorProto::FLOAT, {2});
  set_tensor_type(body->add_output(), "cond_out", onnx::TensorProto::BOOL, {});
  set_tensor_type(body->add_output(), "v_out", onnx::TensorProto::FLOAT, {2});
  add_graph_node(body, "Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  add_graph_node(body, "Bar", {"v_in"}, {"v_out"}, "bar_in_body")->set_domain("custom.domain");
  return model;
}

class OpSupport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = inferlab::testing::make_temp_dir("inferlab-op-support");
    path_ = dir_ + "/mixed.onnx";
    inferlab::testing::write_file(path_, make_mixed_domain_proto().SerializeAsString());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
  std::string path_;
};

TEST_F(OpSupport, SessionLoadListsEveryUnsupportedOperatorOfEveryDomainInOneError) {
  try {
    Session::load(path_);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(std::string(error.what()),
              path_ +
                  ": 3 unsupported operators: Foo (opset 13, nodes 'foo1', 'foo2'), "
                  "com.microsoft.FusedConv (node 'c1'), custom.domain.Bar (nodes 'bar1', "
                  "'bar_in_body')");
  }
}

TEST_F(OpSupport, FindsUnsupportedOpsWithDomainAndOpset) {
  const model::Model model = model::import_model_file(path_);
  const std::vector<UnsupportedOp> unsupported =
      find_unsupported_ops(model, kernels::OpRegistry::reference());
  ASSERT_EQ(unsupported.size(), 3u);
  EXPECT_EQ(unsupported[0].qualified_name(), "Foo");
  EXPECT_EQ(unsupported[0].opset, 13);
  EXPECT_EQ(unsupported[1].domain, "com.microsoft");
  EXPECT_EQ(unsupported[1].op_type, "FusedConv");
  EXPECT_EQ(unsupported[1].opset, 1);
  EXPECT_EQ(unsupported[2].qualified_name(), "custom.domain.Bar");
  EXPECT_EQ(unsupported[2].opset, 3);
  EXPECT_EQ(unsupported[2].nodes, (std::vector<std::string>{"bar1", "bar_in_body"}));
}

TEST_F(OpSupport, DefaultDomainOpWithAKernelInAForeignDomainIsUnsupported) {
  // com.microsoft's Relu is not ONNX's Relu: the registry serves only ai.onnx.
  onnx::ModelProto model = make_model_proto();
  add_opset_import(model, "com.microsoft", 1);
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {2});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {2});
  add_graph_node(graph, "Relu", {"x"}, {"y"}, "ms_relu")->set_domain("com.microsoft");
  try {
    testing::load_proto(model);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(error.what())
                  .find("1 unsupported operator: com.microsoft.Relu (node 'ms_relu')"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace inferlab::runtime
