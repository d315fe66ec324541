// Hand-built graphs for the convolution-fusion tests: a small builder, a
// runner on the reference kernels, and one pass of conv_fusion_passes() run
// the way the pass manager runs it (fresh shape inference first).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "inferlab/optimizer/conv_fusion_passes.h"
#include "inferlab/optimizer/optimizer.h"
#include "inferlab/runtime/executor.h"
#include "inferlab/runtime/shape_inference.h"
#include "test_util.h"

namespace inferlab::optimizer::testing {

inline model::Attribute ints(std::vector<int64_t> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}
inline model::Attribute integer(int64_t value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInt;
  a.i = value;
  return a;
}
inline model::Attribute real(float value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloat;
  a.f = value;
  return a;
}

struct GraphBuilder {
  model::Model model;
  uint32_t seed = 1;

  GraphBuilder() {
    model.source = "<test>";
    model.ir_version = 8;
    model.opsets[""] = 17;
    model.graph = std::make_shared<model::Graph>();
    model.graph->name = "g";
  }
  model::Graph& graph() { return *model.graph; }

  void input(const std::string& name, const Shape& shape) {
    model::ValueInfo info{name, DataType::kFloat32, true, {}};
    for (int64_t d : shape) info.dims.push_back(model::Dim::fixed(d));
    graph().inputs.push_back(info);
  }
  void output(const std::string& name) {
    graph().outputs.push_back(model::ValueInfo{name, DataType::kFloat32, false, {}});
  }
  // A random constant (values in [lo, hi)).
  std::string constant(const std::string& name, const Shape& shape, float lo = -1.0f,
                       float hi = 1.0f) {
    graph().initializers[name] = inferlab::testing::random_float_tensor(shape, seed++, lo, hi);
    return name;
  }
  void node(const std::string& op, std::vector<std::string> inputs,
            std::vector<std::string> outputs, model::AttributeMap attributes = {},
            const std::string& domain = "") {
    model::Node n;
    n.name = op + "_" + std::to_string(graph().nodes.size());
    n.op_type = op;
    n.domain = domain;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attributes = std::move(attributes);
    graph().nodes.push_back(std::move(n));
  }
};

// Random inputs for every graph input (fixed seeds).
inline std::vector<Tensor> random_inputs(const model::Model& model) {
  std::vector<Tensor> inputs;
  uint32_t seed = 100;
  for (const model::ValueInfo& info : model.graph->inputs) {
    inputs.push_back(inferlab::testing::random_float_tensor(info.static_shape(), seed++));
  }
  return inputs;
}

inline std::vector<Tensor> run_model(const model::Model& model, const std::vector<Tensor>& inputs) {
  runtime::ExecutorOptions options;
  options.opset = model.default_opset();
  options.opsets = model.opsets;
  runtime::GraphExecutor executor(*model.graph, kernels::OpRegistry::reference(), options, false);
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : inputs) pointers.push_back(&t);
  return executor.run(pointers);
}

// Runs the pass named `name` of conv_fusion_passes() once over `model`.
inline PassStats run_conv_pass(const std::string& name, model::Model& model) {
  const runtime::ShapeInferenceResult shapes =
      runtime::infer_shapes(model, {}, kernels::OpRegistry::reference());
  PassContext context{model, kernels::OpRegistry::reference(), shapes};
  PassStats stats;
  for (const auto& pass : conv_fusion_passes()) {
    if (name == pass->name()) pass->run(context, stats);
  }
  return stats;
}

inline int64_t count_op(const model::Model& model, const std::string& key) {
  int64_t count = 0;
  for (const model::Node& node : model.graph->nodes) count += op_key(node) == key ? 1 : 0;
  return count;
}

inline const model::Node* find_op(const model::Model& model, const std::string& key) {
  for (const model::Node& node : model.graph->nodes) {
    if (op_key(node) == key) return &node;
  }
  return nullptr;
}

// Runs `pass` and checks the outputs are unchanged (FP32 tolerance).
inline PassStats run_and_compare(const std::string& pass, model::Model& model) {
  const std::vector<Tensor> inputs = random_inputs(model);
  const std::vector<Tensor> before = run_model(model, inputs);
  PassStats stats = run_conv_pass(pass, model);
  const std::vector<Tensor> after = run_model(model, inputs);
  EXPECT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    EXPECT_LE(inferlab::testing::relative_error(after[i], before[i]), 1e-5) << "output " << i;
  }
  return stats;
}

}  // namespace inferlab::optimizer::testing
