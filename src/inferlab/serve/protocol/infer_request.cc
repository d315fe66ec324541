#include "inferlab/serve/protocol/infer_request.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

#include "inferlab/core/error.h"
#include "inferlab/serve/protocol/datatype.h"
#include "inferlab/serve/protocol/json_tensor.h"

namespace inferlab::serve {
namespace {

using nlohmann::json;

json parse_header(std::string_view text, const RequestLimits& limits) {
  const json::parser_callback_t depth_check = [&](int depth, json::parse_event_t, json&) {
    if (depth > limits.max_json_depth) {
      fail(ErrorCode::kLimitExceeded, "request JSON nests deeper than {} levels",
           limits.max_json_depth);
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), depth_check);
  } catch (const json::exception& error) {
    // parse_error, and out_of_range for a number too large for a double
    // (found by the request fuzzer).
    fail(ErrorCode::kInvalidArgument, "request body is not valid JSON: {}", error.what());
  }
}

const json* member(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string name_of(const json& entry, std::string_view what, size_t index,
                    const RequestLimits& limits) {
  const json* name = entry.is_object() ? member(entry, "name") : nullptr;
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    fail(ErrorCode::kInvalidArgument, "{} {} has no \"name\" string", what, index);
  }
  const std::string& text = name->get_ref<const std::string&>();
  if (text.size() > limits.max_name_bytes) {
    fail(ErrorCode::kLimitExceeded, "{} {}: name is longer than {} bytes", what, index,
         limits.max_name_bytes);
  }
  return text;
}

const json& parameters_of(const json& entry, std::string_view what) {
  static const json kEmpty = json::object();
  const json* parameters = member(entry, "parameters");
  if (parameters == nullptr) return kEmpty;
  if (!parameters->is_object()) {
    fail(ErrorCode::kInvalidArgument, "{}: \"parameters\" is not an object", what);
  }
  return *parameters;
}

std::optional<int64_t> non_negative_parameter(const json& parameters, const char* key,
                                              std::string_view what) {
  const json* value = member(parameters, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number_integer() || (!value->is_number_unsigned() && value->get<int64_t>() < 0)) {
    fail(ErrorCode::kInvalidArgument, "{}: parameter \"{}\" is not a non-negative integer", what,
         key);
  }
  if (value->is_number_unsigned() &&
      value->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail(ErrorCode::kOutOfRange, "{}: parameter \"{}\" is too large", what, key);
  }
  return value->get<int64_t>();
}

Shape shape_of(const json& entry, const std::string& name, const RequestLimits& limits) {
  const json* dims = member(entry, "shape");
  if (dims == nullptr || !dims->is_array()) {
    fail(ErrorCode::kInvalidArgument, "input '{}' has no \"shape\" array", name);
  }
  Shape shape;
  int64_t elements = 1;
  for (const json& dim : *dims) {
    if (!dim.is_number_integer() || (!dim.is_number_unsigned() && dim.get<int64_t>() < 0)) {
      fail(ErrorCode::kInvalidArgument,
           "input '{}': shape {} has a dimension that is not a "
           "non-negative integer",
           name, dims->dump());
    }
    const uint64_t size = dim.get<uint64_t>();
    if (size > static_cast<uint64_t>(limits.max_elements) ||
        (size != 0 && elements > limits.max_elements / static_cast<int64_t>(size))) {
      fail(ErrorCode::kLimitExceeded, "input '{}': shape {} has more than {} elements", name,
           dims->dump(), limits.max_elements);
    }
    elements *= static_cast<int64_t>(size);
    shape.push_back(static_cast<int64_t>(size));
  }
  return shape;
}

// Binary tensor data: a view into the body when something keeps the body
// alive and the bytes are aligned for the elements (the transport ends large
// bodies on a 64-byte boundary), else a copy.
Tensor binary_tensor(DataType dtype, Shape shape, const char* bytes,
                     const std::shared_ptr<void>& body_owner) {
  if (body_owner && reinterpret_cast<uintptr_t>(bytes) % dtype_size(dtype) == 0) {
    // The body's memory is the request's own and nothing reads it after
    // decoding, so the engine may treat the view as any input.
    return Tensor::view(dtype, std::move(shape), body_owner, const_cast<char*>(bytes));
  }
  // Filled whole: zeroing it first would only cost a pass.
  Tensor tensor = Tensor::uninitialized(dtype, std::move(shape));
  if (tensor.nbytes() != 0) std::memcpy(tensor.raw_data(), bytes, tensor.nbytes());
  return tensor;
}

// One input: its tensor from "data", or from the binary section at `offset`.
Tensor decode_input(const json& entry, const std::string& name, std::string_view binary,
                    size_t& offset, const RequestLimits& limits,
                    const std::shared_ptr<void>& body_owner) {
  const json* datatype = member(entry, "datatype");
  if (datatype == nullptr || !datatype->is_string()) {
    fail(ErrorCode::kInvalidArgument, "input '{}' has no \"datatype\" string", name);
  }
  const DataType dtype = datatype_from_kserve(datatype->get_ref<const std::string&>(), name);
  Shape shape = shape_of(entry, name, limits);
  const size_t nbytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  const std::optional<int64_t> binary_size = non_negative_parameter(
      parameters_of(entry, "input '" + name + "'"), "binary_data_size", "input '" + name + "'");
  const json* data = member(entry, "data");
  if (binary_size && data != nullptr) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}' has both \"data\" and the binary_data_size parameter", name);
  }
  if (binary_size) {
    if (static_cast<uint64_t>(*binary_size) != nbytes) {
      fail(ErrorCode::kInvalidArgument,
           "input '{}': binary_data_size is {} bytes, but {} {} holds {} bytes", name, *binary_size,
           datatype->get_ref<const std::string&>(), shape_to_string(shape), nbytes);
    }
    if (binary.size() - offset < nbytes) {
      fail(ErrorCode::kInvalidArgument,
           "input '{}': binary_data_size is {} bytes, but only {} bytes of binary data are left",
           name, *binary_size, binary.size() - offset);
    }
    Tensor tensor = binary_tensor(dtype, std::move(shape), binary.data() + offset, body_owner);
    offset += nbytes;
    return tensor;
  }
  if (data == nullptr) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}' has neither \"data\" nor a binary_data_size parameter", name);
  }
  // Every element is written (or the request refused): no zeroing needed.
  Tensor tensor = Tensor::uninitialized(dtype, std::move(shape));
  fill_from_json(*data, tensor, name);
  return tensor;
}

void decode_parameters(const json& root, InferRequest& request) {
  const json& parameters = parameters_of(root, "request");
  request.parameters = parameters;
  if (const json* binary = member(parameters, "binary_data_output")) {
    if (!binary->is_boolean()) {
      fail(ErrorCode::kInvalidArgument,
           "request: parameter \"binary_data_output\" is not a boolean");
    }
    request.binary_data_output = binary->get<bool>();
  }
  request.priority = non_negative_parameter(parameters, "priority", "request");
  request.timeout_us = non_negative_parameter(parameters, "timeout", "request");
}

void decode_outputs(const json& root, InferRequest& request, const RequestLimits& limits) {
  const json* outputs = member(root, "outputs");
  if (outputs == nullptr) return;
  if (!outputs->is_array()) fail(ErrorCode::kInvalidArgument, "\"outputs\" is not an array");
  if (outputs->size() > limits.max_tensors) {
    fail(ErrorCode::kLimitExceeded, "request asks for {} outputs, more than {}", outputs->size(),
         limits.max_tensors);
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < outputs->size(); ++i) {
    RequestedOutput output{name_of((*outputs)[i], "output", i, limits), std::nullopt};
    if (!seen.insert(output.name).second) {
      fail(ErrorCode::kInvalidArgument, "output '{}' is requested twice", output.name);
    }
    const std::string what = "output '" + output.name + "'";
    if (const json* binary = member(parameters_of((*outputs)[i], what), "binary_data")) {
      if (!binary->is_boolean()) {
        fail(ErrorCode::kInvalidArgument, "{}: parameter \"binary_data\" is not a boolean", what);
      }
      output.binary_data = binary->get<bool>();
    }
    request.outputs.push_back(std::move(output));
  }
}

}  // namespace

InferRequest decode_infer_request(std::string_view body, std::optional<size_t> header_length,
                                  const RequestLimits& limits,
                                  const std::shared_ptr<void>& body_owner) {
  if (header_length && *header_length > body.size()) {
    fail(ErrorCode::kInvalidArgument,
         "Inference-Header-Content-Length is {}, but the body has only {} bytes", *header_length,
         body.size());
  }
  const size_t json_bytes = header_length.value_or(body.size());
  const std::string_view binary = body.substr(json_bytes);
  const json root = parse_header(body.substr(0, json_bytes), limits);
  if (!root.is_object()) fail(ErrorCode::kInvalidArgument, "request body is not a JSON object");

  InferRequest request;
  if (const json* id = member(root, "id")) {
    if (!id->is_string()) fail(ErrorCode::kInvalidArgument, "request \"id\" is not a string");
    request.id = id->get<std::string>();
    if (request.id.size() > limits.max_name_bytes) {
      fail(ErrorCode::kLimitExceeded, "request \"id\" is longer than {} bytes",
           limits.max_name_bytes);
    }
  }
  decode_parameters(root, request);
  const json* inputs = member(root, "inputs");
  if (inputs == nullptr || !inputs->is_array() || inputs->empty()) {
    fail(ErrorCode::kInvalidArgument, "request has no \"inputs\" array");
  }
  if (inputs->size() > limits.max_tensors) {
    fail(ErrorCode::kLimitExceeded, "request has {} inputs, more than {}", inputs->size(),
         limits.max_tensors);
  }
  size_t offset = 0;
  for (size_t i = 0; i < inputs->size(); ++i) {
    const std::string name = name_of((*inputs)[i], "input", i, limits);
    if (request.inputs.count(name) != 0) {
      fail(ErrorCode::kInvalidArgument, "input '{}' appears twice", name);
    }
    request.inputs.emplace(name,
                           decode_input((*inputs)[i], name, binary, offset, limits, body_owner));
  }
  if (offset != binary.size()) {
    fail(ErrorCode::kInvalidArgument,
         "{} bytes of binary data follow the JSON, but the inputs' binary_data_size add up to {}",
         binary.size(), offset);
  }
  decode_outputs(root, request, limits);
  return request;
}

bool wants_binary(const InferRequest& request, const std::string& name) {
  for (const RequestedOutput& output : request.outputs) {
    if (output.name == name) return output.binary_data.value_or(request.binary_data_output);
  }
  return request.binary_data_output;
}

}  // namespace inferlab::serve
