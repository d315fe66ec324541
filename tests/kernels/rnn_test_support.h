// Helpers shared by the GRU and LSTM kernel tests: deterministic inputs,
// running one node through its shape rule and reference kernel, and a
// tolerant comparison against reference values computed by PyTorch.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inferlab/kernels/kernel.h"
#include "inferlab/kernels/registry.h"

namespace inferlab::testing {

// sine_tensor(shape, phase)[i] = 0.5 * sin(0.37 * i + phase): the inputs the
// reference values were generated from (same formula in the Python snippet).
inline Tensor sine_tensor(DataType dtype, const Shape& shape, double phase) {
  Tensor tensor(dtype, shape);
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    const double value = 0.5 * std::sin(0.37 * static_cast<double>(i) + phase);
    if (dtype == DataType::kFloat64) {
      tensor.data<double>()[i] = value;
    } else {
      tensor.data<float>()[i] = static_cast<float>(value);
    }
  }
  return tensor;
}

inline model::Attribute int_attribute(int64_t value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInt;
  attribute.i = value;
  return attribute;
}

inline model::Attribute float_attribute(float value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kFloat;
  attribute.f = value;
  return attribute;
}

inline model::Attribute string_attribute(const std::string& value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kString;
  attribute.s = value;
  return attribute;
}

// Runs `op_type` at `opset` on `inputs` (an empty Tensor is an omitted
// optional input): first its shape rule, whose shapes must match what compute
// produces, then compute. Returns the `num_outputs` outputs.
inline std::vector<Tensor> run_rnn_node(const std::string& op_type,
                                        const model::AttributeMap& attributes,
                                        const std::vector<Tensor>& inputs, size_t num_outputs,
                                        int64_t opset = 14) {
  const kernels::OpKernel* kernel = kernels::OpRegistry::reference().find("", op_type, opset);
  if (kernel == nullptr) throw std::runtime_error(op_type + " is not registered");
  const std::string name = "rnn_under_test";
  const kernels::NodeInfo node(name, op_type, opset, attributes);

  std::vector<kernels::ValueFacts> facts;
  std::vector<const Tensor*> pointers;
  for (const Tensor& input : inputs) {
    facts.push_back(input.empty() ? kernels::ValueFacts{}
                                  : kernels::ValueFacts{input.dtype(), input.shape(), nullptr});
    pointers.push_back(input.empty() ? nullptr : &input);
  }
  kernels::InferContext infer(node, facts, num_outputs);
  kernel->infer(infer);

  std::vector<Tensor> outputs(num_outputs);
  kernels::KernelContext compute(node, pointers, outputs);
  kernel->compute(compute);
  for (size_t i = 0; i < num_outputs; ++i) {
    EXPECT_TRUE(infer.outputs()[i].has_value()) << "output " << i;
    if (infer.outputs()[i] && infer.outputs()[i]->second) {
      EXPECT_EQ(*infer.outputs()[i]->second, outputs[i].shape()) << "output " << i;
    }
  }
  return outputs;
}

inline double element(const Tensor& tensor, int64_t index) {
  return tensor.dtype() == DataType::kFloat64 ? tensor.data<double>()[index]
                                              : static_cast<double>(tensor.data<float>()[index]);
}

// Checks shape and values with the conformance tolerance 1e-5 + 1e-3 |b|.
inline void expect_tensor_near(const Tensor& actual, const Shape& shape,
                               const std::vector<double>& expected, const std::string& what) {
  ASSERT_EQ(actual.shape(), shape) << what;
  ASSERT_EQ(static_cast<size_t>(actual.numel()), expected.size()) << what;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    EXPECT_NEAR(element(actual, i), expected[i], 1e-5 + 1e-3 * std::fabs(expected[i]))
        << what << " element " << i;
  }
}

// Swaps the first two axes of a float tensor: turns X and the states between
// layout 0 and layout 1.
inline Tensor swap_leading_axes(const Tensor& tensor) {
  Shape shape = tensor.shape();
  std::swap(shape[0], shape[1]);
  Tensor result(tensor.dtype(), shape);
  const int64_t inner = tensor.numel() / (shape[0] * shape[1]);
  for (int64_t i = 0; i < shape[1]; ++i) {
    for (int64_t j = 0; j < shape[0]; ++j) {
      for (int64_t k = 0; k < inner; ++k) {
        const int64_t from = (i * shape[0] + j) * inner + k;
        const int64_t to = (j * shape[1] + i) * inner + k;
        if (tensor.dtype() == DataType::kFloat64) {
          result.data<double>()[to] = tensor.data<double>()[from];
        } else {
          result.data<float>()[to] = tensor.data<float>()[from];
        }
      }
    }
  }
  return result;
}

// Layout-1 Y [batch, seq, dirs, hidden] -> layout-0 Y [seq, dirs, batch, hidden].
inline std::vector<double> y_layout1_to_layout0(const Tensor& y) {
  const int64_t batch = y.dim(0), seq = y.dim(1), dirs = y.dim(2), hidden = y.dim(3);
  std::vector<double> result(static_cast<size_t>(y.numel()));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < seq; ++t) {
      for (int64_t d = 0; d < dirs; ++d) {
        for (int64_t h = 0; h < hidden; ++h) {
          result[((t * dirs + d) * batch + b) * hidden + h] =
              element(y, ((b * seq + t) * dirs + d) * hidden + h);
        }
      }
    }
  }
  return result;
}

// Layout-1 state [batch, dirs, hidden] -> layout-0 values [dirs, batch, hidden].
inline std::vector<double> state_layout1_to_layout0(const Tensor& state) {
  const Tensor swapped = swap_leading_axes(state);
  std::vector<double> result(static_cast<size_t>(swapped.numel()));
  for (int64_t i = 0; i < swapped.numel(); ++i) result[i] = element(swapped, i);
  return result;
}

}  // namespace inferlab::testing
