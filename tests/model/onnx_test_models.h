// Small ONNX models built in C++ for the importer's tests, and a helper that
// checks an Error's message.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "inferlab/core/error.h"

namespace inferlab::testing {

inline void add_tensor_value(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                             const std::vector<int64_t>& dims) {
  info->set_name(name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (int64_t dim : dims) shape->add_dim()->set_dim_value(dim);
}

inline onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op,
                                 const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs,
                                 const std::string& name = {}) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  if (!name.empty()) node->set_name(name);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
  return node;
}

// y = Relu(x + w), x float[2, 3], w an initializer of six floats.
inline onnx::ModelProto make_add_relu_model(int64_t opset = 13) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("inferlab-test");
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("add_relu");
  add_tensor_value(graph->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  add_tensor_value(graph->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  onnx::TensorProto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(2);
  w->add_dims(3);
  for (int i = 0; i < 6; ++i) w->add_float_data(static_cast<float>(i));
  add_node(graph, "Add", {"x", "w"}, {"sum"}, "add");
  add_node(graph, "Relu", {"sum"}, {"y"}, "relu");
  return model;
}

inline std::string serialize(const onnx::ModelProto& model) {
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

// Runs `body`, expects an inferlab::Error with `code` whose message contains every fragment.
inline void expect_error(const std::function<void()>& body, ErrorCode code,
                         const std::vector<std::string>& fragments) {
  try {
    body();
    ADD_FAILURE() << "expected an inferlab::Error";
  } catch (const Error& e) {
    EXPECT_EQ(error_code_name(e.code()), std::string(error_code_name(code))) << e.what();
    for (const auto& fragment : fragments) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "message: " << e.what() << "\nmissing: " << fragment;
    }
  }
}

}  // namespace inferlab::testing
