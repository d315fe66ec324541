// Test helpers for the data-movement kernels: run one registered reference
// kernel (infer and compute) on given inputs and attributes, as the runtime
// would, without building a graph.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"

namespace inferlab::testing {

inline model::Attribute int_attr(int64_t value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInt;
  a.i = value;
  return a;
}

inline model::Attribute ints_attr(std::vector<int64_t> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}

inline model::Attribute float_attr(float value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloat;
  a.f = value;
  return a;
}

inline model::Attribute floats_attr(std::vector<float> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloats;
  a.floats = std::move(values);
  return a;
}

inline model::Attribute string_attr(std::string value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kString;
  a.s = std::move(value);
  return a;
}

inline model::Attribute tensor_attr(Tensor value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kTensor;
  a.t = std::move(value);
  return a;
}

template <typename T>
Tensor make(std::vector<T> values, Shape shape) {
  return Tensor::from_vector<T>(values, std::move(shape));
}

template <typename T>
std::vector<T> values_of(const Tensor& tensor) {
  const T* data = tensor.data<T>();
  return std::vector<T>(data, data + tensor.numel());
}

// One node of `op_type` at `opset`, named "node".
struct NodeRun {
  explicit NodeRun(std::string op, int64_t version = 17, model::AttributeMap attrs = {})
      : op_type(std::move(op)), opset(version), attributes(std::move(attrs)) {}

  std::string op_type;
  int64_t opset = 17;
  model::AttributeMap attributes;
  std::string name = "node";

  const kernels::OpKernel& kernel() const {
    const auto* found = kernels::OpRegistry::reference().find("", op_type, opset);
    if (found == nullptr) throw std::runtime_error("no kernel for " + op_type);
    return *found;
  }

  // Runs infer (inputs' values known) then compute; checks that the
  // inferred shapes match the computed ones. Absent inputs are nullopt.
  std::vector<Tensor> run(const std::vector<std::optional<Tensor>>& inputs,
                          size_t num_outputs = 1) const {
    const kernels::NodeInfo node(name, op_type, opset, attributes);
    std::vector<kernels::ValueFacts> facts;
    std::vector<const Tensor*> pointers;
    for (const auto& input : inputs) {
      facts.push_back(input ? kernels::ValueFacts{input->dtype(), input->shape(), &*input}
                            : kernels::ValueFacts{});
      pointers.push_back(input ? &*input : nullptr);
    }
    kernels::InferContext infer(node, facts, num_outputs);
    kernel().infer(infer);
    std::vector<Tensor> outputs(num_outputs);
    kernels::KernelContext context(node, pointers, outputs);
    kernel().compute(context);
    for (size_t i = 0; i < num_outputs; ++i) {
      const auto& inferred = infer.outputs()[i];
      EXPECT_TRUE(inferred.has_value()) << "output " << i << " not inferred";
      if (!inferred) continue;
      EXPECT_EQ(inferred->first, outputs[i].dtype()) << "output " << i;
      if (inferred->second) {
        EXPECT_EQ(*inferred->second, outputs[i].shape()) << "output " << i;
      }
    }
    return outputs;
  }

  // Runs only the shape rule with the given facts (values may be null).
  std::vector<std::optional<std::pair<DataType, std::optional<Shape>>>> infer(
      const std::vector<kernels::ValueFacts>& facts, size_t num_outputs = 1) const {
    const kernels::NodeInfo node(name, op_type, opset, attributes);
    kernels::InferContext context(node, facts, num_outputs);
    kernel().infer(context);
    return context.outputs();
  }
};

// Expects `body` to throw inferlab::Error with `code` and a message containing every `parts`.
template <typename Body>
void expect_error(Body body, ErrorCode code, const std::vector<std::string>& parts) {
  try {
    body();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
    for (const auto& part : parts) {
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << "'" << error.what() << "' lacks '" << part << "'";
    }
  }
}

}  // namespace inferlab::testing
