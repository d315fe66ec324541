// KServe v2 request bodies. JSON numbers are written in their shortest form
// that reads back to the same value (fmt's "{}"), so a JSON body carries the
// very values the binary one does.
#include "inferlab/loadgen/infer_body.h"

#include <cctype>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::loadgen {

namespace {

struct DatatypeName {
  DataType dtype;
  std::string_view name;
};

constexpr DatatypeName kDatatypes[] = {
    {DataType::kBool, "BOOL"},     {DataType::kUint8, "UINT8"},   {DataType::kUint16, "UINT16"},
    {DataType::kUint32, "UINT32"}, {DataType::kUint64, "UINT64"}, {DataType::kInt8, "INT8"},
    {DataType::kInt16, "INT16"},   {DataType::kInt32, "INT32"},   {DataType::kInt64, "INT64"},
    {DataType::kFloat16, "FP16"},  {DataType::kFloat32, "FP32"},  {DataType::kFloat64, "FP64"},
    {DataType::kBFloat16, "BF16"},
};

template <typename T>
void append_integers(fmt::memory_buffer& out, const Tensor& tensor) {
  const T* values = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    if (i > 0) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(values[i]));
  }
}

void append_values(fmt::memory_buffer& out, const Tensor& tensor) {
  auto next = [&](int64_t i) {
    if (i > 0) out.push_back(',');
  };
  switch (tensor.dtype()) {
    case DataType::kBool:
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        next(i);
        fmt::format_to(std::back_inserter(out), "{}", tensor.data<bool>()[i]);
      }
      return;
    case DataType::kUint64:
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        next(i);
        fmt::format_to(std::back_inserter(out), "{}", tensor.data<uint64_t>()[i]);
      }
      return;
    case DataType::kUint8:
      return append_integers<uint8_t>(out, tensor);
    case DataType::kUint16:
      return append_integers<uint16_t>(out, tensor);
    case DataType::kUint32:
      return append_integers<uint32_t>(out, tensor);
    case DataType::kInt8:
      return append_integers<int8_t>(out, tensor);
    case DataType::kInt16:
      return append_integers<int16_t>(out, tensor);
    case DataType::kInt32:
      return append_integers<int32_t>(out, tensor);
    case DataType::kInt64:
      return append_integers<int64_t>(out, tensor);
    case DataType::kFloat64:
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        next(i);
        fmt::format_to(std::back_inserter(out), "{}", tensor.data<double>()[i]);
      }
      return;
    default:  // FP32, FP16, BF16: every one of their values is a float
      for (int64_t i = 0; i < tensor.numel(); ++i) {
        next(i);
        fmt::format_to(std::back_inserter(out), "{}",
                       static_cast<float>(tensor.element_as_double(i)));
      }
  }
}

std::string percent_encoded(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// {"name":...,"shape":[...],"datatype":"FP32"
std::string input_prefix(const std::string& name, const Tensor& tensor) {
  return fmt::format(R"({{"name":{},"shape":[{}],"datatype":"{}")", nlohmann::json(name).dump(),
                     fmt::join(tensor.shape(), ","), kserve_datatype(tensor.dtype()));
}

}  // namespace

BodyFormat parse_body_format(const std::string& text) {
  if (text == "binary") return BodyFormat::kBinary;
  if (text == "json") return BodyFormat::kJson;
  fail(ErrorCode::kInvalidArgument, "--body '{}': expected binary or json", text);
}

std::string_view body_format_name(BodyFormat format) {
  return format == BodyFormat::kBinary ? "binary" : "json";
}

std::string_view kserve_datatype(DataType dtype) {
  for (const DatatypeName& entry : kDatatypes)
    if (entry.dtype == dtype) return entry.name;
  fail(ErrorCode::kUnsupported, "element type {} has no KServe v2 datatype InferLab sends",
       dtype_name(dtype));
}

DataType dtype_from_kserve(std::string_view name) {
  for (const DatatypeName& entry : kDatatypes)
    if (entry.name == name) return entry.dtype;
  if (name == "BYTES")
    fail(ErrorCode::kUnsupported, "datatype BYTES (strings) cannot be generated: give --inputs");
  fail(ErrorCode::kInvalidArgument, "datatype '{}' is not a KServe v2 datatype", name);
}

std::string InferBody::extra_headers() const {
  if (header_length == 0) return "";
  return fmt::format("Inference-Header-Content-Length: {}\r\n", header_length);
}

InferBody encode_infer_body(const NamedTensors& inputs, BodyFormat format) {
  fmt::memory_buffer json;
  fmt::format_to(std::back_inserter(json), R"({{"inputs":[)");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& [name, tensor] = inputs[i];
    if (i > 0) json.push_back(',');
    fmt::format_to(std::back_inserter(json), "{}", input_prefix(name, tensor));
    if (format == BodyFormat::kBinary) {
      fmt::format_to(std::back_inserter(json), R"(,"parameters":{{"binary_data_size":{}}}}})",
                     tensor.nbytes());
    } else {
      fmt::format_to(std::back_inserter(json), R"(,"data":[)");
      append_values(json, tensor);
      fmt::format_to(std::back_inserter(json), "]}}");
    }
  }
  fmt::format_to(std::back_inserter(json), "]");
  if (format == BodyFormat::kBinary)
    fmt::format_to(std::back_inserter(json), R"(,"parameters":{{"binary_data_output":true}})");
  json.push_back('}');

  InferBody body;
  body.bytes.assign(json.data(), json.size());
  if (format == BodyFormat::kJson) {
    body.content_type = "application/json";
    return body;
  }
  body.header_length = body.bytes.size();
  body.content_type = "application/octet-stream";
  for (const auto& [name, tensor] : inputs)
    body.bytes.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return body;
}

std::string model_path(const std::string& name, const std::string& version) {
  std::string path = "/v2/models/" + percent_encoded(name);
  if (!version.empty()) path += "/versions/" + percent_encoded(version);
  return path;
}

std::string infer_path(const std::string& name, const std::string& version) {
  return model_path(name, version) + "/infer";
}

std::vector<model::ValueInfo> inputs_from_metadata(const nlohmann::json& metadata) {
  if (!metadata.is_object() || !metadata.contains("inputs") || !metadata["inputs"].is_array())
    fail(ErrorCode::kInvalidArgument, "model metadata: no \"inputs\" array");
  std::vector<model::ValueInfo> inputs;
  for (const nlohmann::json& entry : metadata["inputs"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
        !entry.contains("datatype") || !entry["datatype"].is_string() || !entry.contains("shape") ||
        !entry["shape"].is_array()) {
      fail(ErrorCode::kInvalidArgument,
           "model metadata: input {} lacks a string \"name\", a string \"datatype\" or a "
           "\"shape\" array",
           entry.dump());
    }
    model::ValueInfo input;
    input.name = entry["name"].get<std::string>();
    input.dtype = dtype_from_kserve(entry["datatype"].get<std::string>());
    input.has_shape = true;
    for (const nlohmann::json& dim : entry["shape"]) {
      const std::string symbol = fmt::format("dim{}", input.dims.size());
      if (!dim.is_number_integer() || dim.get<int64_t>() < -1)
        fail(ErrorCode::kInvalidArgument, "model metadata: input '{}' has shape {}", input.name,
             entry["shape"].dump());
      const int64_t size = dim.get<int64_t>();
      input.dims.push_back(size >= 0 ? model::Dim::fixed(size) : model::Dim::symbolic(symbol));
    }
    inputs.push_back(std::move(input));
  }
  return inputs;
}

}  // namespace inferlab::loadgen
