// Helpers for the basic-pass tests: build a small model in code, run one
// pass over it with the shape facts the pass manager would give it, and
// execute a graph node by node with the reference kernels, so a test can
// compare results before and after a pass.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "inferlab/kernels/kernel.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_pass.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::optimizer::basic_test {

inline model::Attribute ints_attr(std::vector<int64_t> values) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInts;
  attribute.ints = std::move(values);
  return attribute;
}

inline model::Attribute int_attr(int64_t value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInt;
  attribute.i = value;
  return attribute;
}

inline model::Attribute string_attr(const std::string& value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kString;
  attribute.s = value;
  return attribute;
}

struct TestModel {
  model::Model model;

  explicit TestModel(int64_t opset = 17) {
    model.source = "<test>";
    model.ir_version = 8;
    model.opsets[""] = opset;
    model.graph = std::make_shared<model::Graph>();
  }
  model::Graph& graph() { return *model.graph; }
  void input(const std::string& name, const Shape& shape, DataType dtype = DataType::kFloat32) {
    model::ValueInfo info{name, dtype, true, {}};
    for (int64_t dim : shape) info.dims.push_back(model::Dim::fixed(dim));
    graph().inputs.push_back(info);
  }
  void output(const std::string& name) {
    graph().outputs.push_back(model::ValueInfo{name, DataType::kFloat32, false, {}});
  }
  void constant(const std::string& name, Tensor value) {
    graph().initializers[name] = std::move(value);
  }
  void overridable(const std::string& name, Tensor value) {
    model::ValueInfo info{name, value.dtype(), true, {}};
    for (int64_t dim : value.shape()) info.dims.push_back(model::Dim::fixed(dim));
    graph().overridable_initializers.push_back(info);
    constant(name, std::move(value));
  }
  model::Node& node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                    std::vector<std::string> outputs, model::AttributeMap attributes = {}) {
    graph().nodes.push_back(
        model::Node{name, op, "", std::move(inputs), std::move(outputs), std::move(attributes)});
    return graph().nodes.back();
  }
  int count(const std::string& op) const {
    int n = 0;
    for (const model::Node& node : model.graph->nodes) n += node.op_type == op ? 1 : 0;
    return n;
  }
};

// A copy that shares nothing editable with `model` (Model holds its graph by pointer).
inline model::Model deep_copy(const model::Model& model) {
  model::Model copy = model;
  copy.graph = std::make_shared<model::Graph>(*model.graph);
  return copy;
}

inline runtime::ShapeInferenceResult infer(const model::Model& model) {
  return runtime::infer_shapes(model, {}, kernels::OpRegistry::reference());
}

// Runs `pass` once over `model`; checks the result still infers.
inline PassStats run_pass(GraphPass& pass, model::Model& model) {
  const runtime::ShapeInferenceResult shapes = infer(model);
  PassContext context{model, kernels::OpRegistry::reference(), shapes};
  PassStats stats;
  pass.run(context, stats);
  infer(model);
  return stats;
}

// The graph outputs, computed node by node with the reference kernels.
inline std::map<std::string, Tensor> execute(const model::Model& model,
                                             const std::map<std::string, Tensor>& inputs) {
  std::map<std::string, Tensor> values(inputs);
  for (const auto& [name, tensor] : model.graph->initializers) values.emplace(name, tensor);
  for (const model::Node& node : model.graph->nodes) {
    const int64_t opset = model.opset_of(node.domain);
    const kernels::OpKernel* kernel =
        kernels::OpRegistry::reference().find(node.domain, node.op_type, opset);
    if (kernel == nullptr) throw std::runtime_error("no kernel for " + node.op_type);
    const kernels::NodeInfo info(node.name, node.op_type, opset, node.attributes);
    std::vector<const Tensor*> in;
    for (const std::string& name : node.inputs)
      in.push_back(name.empty() ? nullptr : &values.at(name));
    std::vector<Tensor> out(node.outputs.size());
    kernels::KernelContext context(info, in, out);
    kernel->compute(context);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (!node.outputs[i].empty()) values[node.outputs[i]] = out[i];
    }
  }
  std::map<std::string, Tensor> outputs;
  for (const model::ValueInfo& output : model.graph->outputs)
    outputs[output.name] = values.at(output.name);
  return outputs;
}

}  // namespace inferlab::optimizer::basic_test
