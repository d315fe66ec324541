// Input shape fixing and run-input validation; see input_check.h.
#include "inferlab/runtime/input_check.h"

#include <fmt/format.h>

namespace inferlab::runtime {

namespace {

std::string dim_label(const model::Dim& dim) {
  return dim.symbol.empty() ? std::string() : fmt::format(" ('{}')", dim.symbol);
}

std::string input_names(const std::vector<model::ValueInfo>& inputs) {
  std::string names;
  for (const model::ValueInfo& input : inputs) {
    names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", input.name, input.to_string());
  }
  return names.empty() ? "none" : names;
}

}  // namespace

model::ValueInfo apply_input_shape(const model::ValueInfo& input, const Shape& shape,
                                   const std::string& source) {
  if (input.has_shape && input.dims.size() != shape.size()) {
    fail(ErrorCode::kInvalidArgument,
         "{}: input '{}' is {} (rank {}), but the given shape {} has rank {}", source, input.name,
         input.to_string(), input.dims.size(), shape_to_string(shape), shape.size());
  }
  model::ValueInfo fixed = input;
  fixed.has_shape = true;
  fixed.dims.resize(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    const model::Dim& declared = input.has_shape ? input.dims[i] : model::Dim{};
    if (declared.is_static() && declared.value != shape[i]) {
      fail(ErrorCode::kInvalidArgument,
           "{}: input '{}': dimension {} is fixed at {} in the model ({}), but the given shape {} "
           "sets it to {}",
           source, input.name, i, declared.value, input.to_string(), shape_to_string(shape),
           shape[i]);
    }
    fixed.dims[i] = model::Dim::fixed(shape[i]);
  }
  return fixed;
}

std::vector<model::ValueInfo> apply_input_shapes(const model::Graph& graph,
                                                 const std::map<std::string, Shape>& shapes,
                                                 const std::string& source) {
  return apply_input_shapes(graph.inputs, shapes, source);
}

std::vector<model::ValueInfo> apply_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                 const std::map<std::string, Shape>& shapes,
                                                 const std::string& source) {
  for (const auto& [name, shape] : shapes) {
    bool found = false;
    for (const model::ValueInfo& input : inputs) found = found || input.name == name;
    if (!found) {
      fail(ErrorCode::kInvalidArgument,
           "{}: a shape is given for '{}', which is not an input (inputs: {})", source, name,
           input_names(inputs));
    }
  }
  std::vector<model::ValueInfo> fixed;
  for (const model::ValueInfo& input : inputs) {
    auto given = shapes.find(input.name);
    fixed.push_back(given == shapes.end() ? input
                                          : apply_input_shape(input, given->second, source));
  }
  return fixed;
}

std::map<std::string, Shape> static_input_shapes(const std::vector<model::ValueInfo>& inputs) {
  std::map<std::string, Shape> shapes;
  for (const model::ValueInfo& input : inputs) {
    if (input.is_static()) shapes[input.name] = input.static_shape();
  }
  return shapes;
}

void check_input_tensor(const model::ValueInfo& declared, const Tensor& actual) {
  if (actual.empty())
    fail(ErrorCode::kInvalidArgument, "input '{}' is an empty tensor", declared.name);
  if (declared.dtype != DataType::kUndefined && actual.dtype() != declared.dtype) {
    fail(ErrorCode::kInvalidArgument, "input '{}': expected {} ({}), got {} {}", declared.name,
         dtype_name(declared.dtype), declared.to_string(), dtype_name(actual.dtype()),
         shape_to_string(actual.shape()));
  }
  if (!declared.has_shape) return;
  if (declared.dims.size() != actual.shape().size()) {
    fail(ErrorCode::kInvalidArgument, "input '{}': expected rank {} ({}), got shape {}",
         declared.name, declared.dims.size(), declared.to_string(),
         shape_to_string(actual.shape()));
  }
  for (size_t i = 0; i < declared.dims.size(); ++i) {
    const model::Dim& dim = declared.dims[i];
    if (dim.is_static() && dim.value != actual.shape()[i]) {
      fail(ErrorCode::kInvalidArgument,
           "input '{}': dimension {} is {}, expected {} ({}); got shape {}", declared.name, i,
           actual.shape()[i], dim.value, declared.to_string(), shape_to_string(actual.shape()));
    }
  }
}

namespace {

// Inputs sharing a dim symbol ("batch") must agree on its size.
void check_symbols(const std::vector<model::ValueInfo>& inputs,
                   const std::vector<const Tensor*>& tensors) {
  std::map<std::string, std::pair<int64_t, std::string>> seen;  // symbol -> size, input
  for (size_t i = 0; i < inputs.size(); ++i) {
    const model::ValueInfo& input = inputs[i];
    if (!input.has_shape) continue;
    for (size_t d = 0; d < input.dims.size(); ++d) {
      const model::Dim& dim = input.dims[d];
      if (dim.is_static() || dim.symbol.empty()) continue;
      const int64_t size = tensors[i]->shape()[d];
      auto [it, inserted] = seen.emplace(dim.symbol, std::make_pair(size, input.name));
      if (!inserted && it->second.first != size) {
        fail(ErrorCode::kInvalidArgument,
             "input '{}': dimension {}{} is {}, but input '{}' gives '{}' the size {}", input.name,
             d, dim_label(dim), size, it->second.second, dim.symbol, it->second.first);
      }
    }
  }
}

}  // namespace

MatchedInputs match_inputs(const std::vector<model::ValueInfo>& inputs,
                           const std::vector<model::ValueInfo>& overridable,
                           const std::map<std::string, Tensor>& given) {
  MatchedInputs matched;
  for (const auto& [name, tensor] : given) {
    bool is_input = false;
    for (const model::ValueInfo& input : inputs) is_input = is_input || input.name == name;
    if (is_input) continue;
    const model::ValueInfo* initializer = nullptr;
    for (const model::ValueInfo& info : overridable) {
      if (info.name == name) initializer = &info;
    }
    if (initializer == nullptr) {
      fail(ErrorCode::kInvalidArgument, "no input named '{}'; the model's inputs are: {}", name,
           input_names(inputs));
    }
    check_input_tensor(*initializer, tensor);
    matched.overrides[name] = &tensor;
  }
  for (const model::ValueInfo& input : inputs) {
    auto it = given.find(input.name);
    if (it == given.end()) {
      fail(ErrorCode::kInvalidArgument, "missing input '{}' ({})", input.name, input.to_string());
    }
    check_input_tensor(input, it->second);
    matched.positional.push_back(&it->second);
  }
  check_symbols(inputs, matched.positional);
  return matched;
}

}  // namespace inferlab::runtime
