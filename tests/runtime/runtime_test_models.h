// Small ONNX models built in C++ for the runtime tests (serialized and loaded
// through Session::load_bytes, so the whole load path runs).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "inferlab/runtime/session.h"

namespace inferlab::testing {

// `dims`: a number, or a symbol for values < 0 (named `symbol`).
inline void set_tensor_type(onnx::ValueInfoProto* info, const std::string& name, int32_t elem_type,
                            const std::vector<int64_t>& dims, const std::string& symbol = "batch") {
  info->set_name(name);
  auto* tensor_type = info->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(elem_type);
  auto* shape = tensor_type->mutable_shape();
  for (int64_t dim : dims) {
    if (dim >= 0)
      shape->add_dim()->set_dim_value(dim);
    else
      shape->add_dim()->set_dim_param(symbol);
  }
}

inline onnx::NodeProto* add_graph_node(onnx::GraphProto* graph, const std::string& op,
                                       const std::vector<std::string>& inputs,
                                       const std::vector<std::string>& outputs,
                                       const std::string& name) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const auto& input : inputs) node->add_input(input);
  for (const auto& output : outputs) node->add_output(output);
  return node;
}

inline void add_int_attribute(onnx::NodeProto* node, const std::string& name, int64_t value) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

inline onnx::GraphProto* add_graph_attribute(onnx::NodeProto* node, const std::string& name) {
  onnx::AttributeProto* attribute = node->add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* graph = attribute->mutable_g();
  graph->set_name(name);
  return graph;
}

inline void add_float_initializer(onnx::GraphProto* graph, const std::string& name,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<float>& values) {
  onnx::TensorProto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) tensor->add_dims(dim);
  for (float value : values) tensor->add_float_data(value);
}

inline onnx::ModelProto make_model_proto(int64_t opset = 13) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("inferlab-runtime-test");
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model.mutable_graph()->set_name("test");
  return model;
}

inline runtime::Session load_proto(const onnx::ModelProto& model,
                                   const runtime::SessionOptions& options = {}) {
  const std::string bytes = model.SerializeAsString();
  return runtime::Session::load_bytes(bytes.data(), bytes.size(), options);
}

// y = Relu(x + w): x float[batch, 3], w = [0, 1, 2] (so y is known exactly).
inline onnx::ModelProto make_add_relu_proto() {
  onnx::ModelProto model = make_model_proto();
  onnx::GraphProto* graph = model.mutable_graph();
  set_tensor_type(graph->add_input(), "x", onnx::TensorProto::FLOAT, {-1, 3});
  set_tensor_type(graph->add_output(), "y", onnx::TensorProto::FLOAT, {-1, 3});
  add_float_initializer(graph, "w", {3}, {0.0f, 1.0f, 2.0f});
  add_graph_node(graph, "Add", {"x", "w"}, {"sum"}, "add");
  add_graph_node(graph, "Relu", {"sum"}, {"y"}, "relu");
  return model;
}

}  // namespace inferlab::testing
