// Helpers for the transformer fusion tests: build a small model::Model in
// code, run one pass over it (with shape inference as the pass manager
// gives it), and execute a model node by node with the registry's kernels
// so a graph can be compared before and after a pass.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/kernels/kernel.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_pass.h"
#include "inferlab/runtime/shape_inference.h"
#include "test_util.h"

namespace inferlab::testing {

struct GraphBuilder {
  model::Model model;

  explicit GraphBuilder(int64_t opset = 17) {
    model.opsets[""] = opset;
    model.ir_version = 8;
    model.source = "<test>";
    model.graph = std::make_shared<model::Graph>();
  }
  model::Graph& graph() { return *model.graph; }
  void input(const std::string& name, const Shape& shape) {
    model::ValueInfo info{name, DataType::kFloat32, true, {}};
    for (int64_t d : shape) info.dims.push_back(model::Dim::fixed(d));
    graph().inputs.push_back(info);
  }
  void output(const std::string& name) { graph().outputs.push_back({name, DataType::kFloat32}); }
  void constant(const std::string& name, Tensor value) {
    graph().initializers[name] = std::move(value);
  }
  void scalar(const std::string& name, float value) {
    constant(name, Tensor::from_vector<float>({value}, Shape{}));
  }
  model::Node& node(const std::string& op, std::vector<std::string> inputs,
                    std::vector<std::string> outputs, model::AttributeMap attributes = {}) {
    model::Node n{outputs.at(0) + "_node", op, "", std::move(inputs), std::move(outputs),
                  std::move(attributes)};
    graph().nodes.push_back(std::move(n));
    return graph().nodes.back();
  }
};

inline runtime::ShapeInferenceResult infer(const model::Model& model) {
  return runtime::infer_shapes(model, {}, kernels::OpRegistry::reference());
}

// Runs `pass` once; returns what it recorded.
inline optimizer::PassStats run_pass(optimizer::GraphPass& pass, model::Model& model) {
  const runtime::ShapeInferenceResult shapes = infer(model);
  optimizer::PassContext context{model, kernels::OpRegistry::reference(), shapes};
  optimizer::PassStats stats;
  pass.run(context, stats);
  infer(model);  // the rewritten graph must still be valid
  return stats;
}

// Executes the main graph with the registry's kernels.
inline std::map<std::string, Tensor> execute(const model::Model& model,
                                             const std::map<std::string, Tensor>& inputs) {
  std::map<std::string, Tensor> values(inputs);
  for (const auto& [name, tensor] : model.graph->initializers) values[name] = tensor;
  for (const model::Node& node : model.graph->nodes) {
    const kernels::OpKernel* kernel = kernels::OpRegistry::reference().find(
        node.domain, node.op_type, model.opset_of(node.domain));
    if (kernel == nullptr) throw std::runtime_error("no kernel for " + node.op_type);
    const kernels::NodeInfo info(node.name, node.op_type, model.opset_of(node.domain),
                                 node.attributes);
    std::vector<const Tensor*> in;
    for (const std::string& name : node.inputs)
      in.push_back(name.empty() ? nullptr : &values.at(name));
    std::vector<Tensor> out(node.outputs.size());
    kernels::KernelContext ctx(info, in, out);
    kernel->compute(ctx);
    for (size_t i = 0; i < out.size(); ++i) values[node.outputs[i]] = std::move(out[i]);
  }
  std::map<std::string, Tensor> results;
  for (const auto& output : model.graph->outputs) results[output.name] = values.at(output.name);
  return results;
}

inline int count_ops(const model::Model& model, const std::string& op) {
  int n = 0;
  for (const model::Node& node : model.graph->nodes) n += node.op_type == op ? 1 : 0;
  return n;
}

inline model::Attribute ints(std::vector<int64_t> v) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
inline model::Attribute one_int(int64_t v) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInt;
  a.i = v;
  return a;
}

// Runs the pass and checks the outputs are unchanged (FP32 tolerance).
inline optimizer::PassStats run_pass_and_compare(optimizer::GraphPass& pass, model::Model& model,
                                                 const std::map<std::string, Tensor>& inputs) {
  const auto before = execute(model, inputs);
  const optimizer::PassStats stats = run_pass(pass, model);
  const auto after = execute(model, inputs);
  for (const auto& [name, tensor] : before) {
    EXPECT_LE(relative_error(after.at(name), tensor), 1e-5) << name;
  }
  return stats;
}

}  // namespace inferlab::testing
