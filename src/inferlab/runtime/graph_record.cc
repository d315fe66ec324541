#include "inferlab/runtime/graph_record.h"

#include "inferlab/core/error.h"

namespace inferlab::runtime {

using nlohmann::json;

namespace {

constexpr uint64_t kTensorAlignment = 64;

json value_info_record(const model::ValueInfo& info) {
  json dims = json::array();
  for (const model::Dim& dim : info.dims) {
    if (dim.is_static())
      dims.push_back(dim.value);
    else if (!dim.symbol.empty())
      dims.push_back(dim.symbol);
    else
      dims.push_back(nullptr);
  }
  return {{"name", info.name},
          {"dtype", static_cast<int32_t>(info.dtype)},
          {"has_shape", info.has_shape},
          {"dims", dims}};
}

model::ValueInfo value_info_from(const json& record) {
  model::ValueInfo info;
  info.name = record.at("name").get<std::string>();
  info.dtype = static_cast<DataType>(record.at("dtype").get<int32_t>());
  info.has_shape = record.at("has_shape").get<bool>();
  for (const json& dim : record.at("dims")) {
    if (dim.is_number_integer())
      info.dims.push_back(model::Dim::fixed(dim.get<int64_t>()));
    else
      info.dims.push_back(model::Dim::symbolic(dim.is_string() ? dim.get<std::string>() : ""));
  }
  return info;
}

json tensor_record(const Tensor& tensor, BlobLayout& blob) {
  json record = {{"dtype", static_cast<int32_t>(tensor.dtype())},
                 {"shape", std::vector<int64_t>(tensor.shape().begin(), tensor.shape().end())}};
  if (tensor.empty()) return {{"empty", true}};
  if (!tensor.has_data() && tensor.numel() > 0) {
    record["released"] = true;
    return record;
  }
  if (tensor.dtype() == DataType::kString) {
    json strings = json::array();
    const std::string* values = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.numel(); ++i) strings.push_back(values[i]);
    record["strings"] = std::move(strings);
    return record;
  }
  record["offset"] = blob.add(tensor);
  record["bytes"] = tensor.nbytes();
  return record;
}

Tensor tensor_from(const json& record, const char* blob, uint64_t blob_bytes) {
  if (record.value("empty", false)) return Tensor();
  const auto dtype = static_cast<DataType>(record.at("dtype").get<int32_t>());
  const std::vector<int64_t> dims = record.at("shape").get<std::vector<int64_t>>();
  const Shape shape(dims.begin(), dims.end());
  if (dtype == DataType::kString) {
    Tensor tensor(dtype, shape);
    const json& strings = record.at("strings");
    if (static_cast<int64_t>(strings.size()) != tensor.numel())
      fail(ErrorCode::kInvalidModel, "string tensor holds {} values for shape {}", strings.size(),
           shape_to_string(shape));
    std::string* values = tensor.data<std::string>();
    for (size_t i = 0; i < strings.size(); ++i) values[i] = strings[i].get<std::string>();
    return tensor;
  }
  if (record.value("released", false)) return Tensor::shape_only(dtype, shape);
  const uint64_t offset = record.at("offset").get<uint64_t>();
  const uint64_t bytes = record.at("bytes").get<uint64_t>();
  Tensor view = Tensor::borrow(dtype, shape, const_cast<char*>(blob) + offset);
  if (offset > blob_bytes || bytes > blob_bytes - offset || bytes != view.nbytes())
    fail(ErrorCode::kInvalidModel, "tensor of {} bytes at offset {} is outside the {} byte blob",
         bytes, offset, blob_bytes);
  return view;
}

json attribute_record(const model::Attribute& attribute, BlobLayout& blob) {
  using Kind = model::Attribute::Kind;
  json record = {{"kind", static_cast<int>(attribute.kind)}};
  switch (attribute.kind) {
    case Kind::kFloat:
      record["f"] = attribute.f;
      break;
    case Kind::kInt:
      record["i"] = attribute.i;
      break;
    case Kind::kString:
      record["s"] = attribute.s;
      break;
    case Kind::kTensor:
      record["t"] = tensor_record(attribute.t, blob);
      break;
    case Kind::kGraph:
      record["g"] = graph_to_record(*attribute.g, blob);
      break;
    case Kind::kFloats:
      record["floats"] = attribute.floats;
      break;
    case Kind::kInts:
      record["ints"] = attribute.ints;
      break;
    case Kind::kStrings:
      record["strings"] = attribute.strings;
      break;
    case Kind::kTensors:
      record["tensors"] = json::array();
      for (const Tensor& tensor : attribute.tensors)
        record["tensors"].push_back(tensor_record(tensor, blob));
      break;
  }
  return record;
}

model::Attribute attribute_from(const json& record, const char* blob, uint64_t blob_bytes) {
  using Kind = model::Attribute::Kind;
  model::Attribute attribute;
  const int kind = record.at("kind").get<int>();
  if (kind < 0 || kind > static_cast<int>(Kind::kTensors))
    fail(ErrorCode::kInvalidModel, "unknown attribute kind {}", kind);
  attribute.kind = static_cast<Kind>(kind);
  switch (attribute.kind) {
    case Kind::kFloat:
      attribute.f = record.at("f").get<float>();
      break;
    case Kind::kInt:
      attribute.i = record.at("i").get<int64_t>();
      break;
    case Kind::kString:
      attribute.s = record.at("s").get<std::string>();
      break;
    case Kind::kTensor:
      attribute.t = tensor_from(record.at("t"), blob, blob_bytes);
      break;
    case Kind::kGraph:
      attribute.g = graph_from_record(record.at("g"), blob, blob_bytes);
      break;
    case Kind::kFloats:
      attribute.floats = record.at("floats").get<std::vector<float>>();
      break;
    case Kind::kInts:
      attribute.ints = record.at("ints").get<std::vector<int64_t>>();
      break;
    case Kind::kStrings:
      attribute.strings = record.at("strings").get<std::vector<std::string>>();
      break;
    case Kind::kTensors:
      for (const json& tensor : record.at("tensors"))
        attribute.tensors.push_back(tensor_from(tensor, blob, blob_bytes));
      break;
  }
  return attribute;
}

json value_infos_record(const std::vector<model::ValueInfo>& infos) {
  json list = json::array();
  for (const model::ValueInfo& info : infos) list.push_back(value_info_record(info));
  return list;
}

std::vector<model::ValueInfo> value_infos_from(const json& list) {
  std::vector<model::ValueInfo> infos;
  for (const json& record : list) infos.push_back(value_info_from(record));
  return infos;
}

}  // namespace

uint64_t BlobLayout::add(const void* data, uint64_t bytes) {
  const uint64_t offset =
      (total_bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  pieces.push_back({data, bytes});
  offsets.push_back(offset);
  total_bytes = offset + bytes;
  return offset;
}

json graph_to_record(const model::Graph& graph, BlobLayout& blob) {
  json nodes = json::array();
  for (const model::Node& node : graph.nodes) {
    json attributes = json::object();
    for (const auto& [name, attribute] : node.attributes)
      attributes[name] = attribute_record(attribute, blob);
    nodes.push_back({{"name", node.name},
                     {"op", node.op_type},
                     {"domain", node.domain},
                     {"inputs", node.inputs},
                     {"outputs", node.outputs},
                     {"attributes", attributes}});
  }
  json initializers = json::object();
  for (const auto& [name, tensor] : graph.initializers)
    initializers[name] = tensor_record(tensor, blob);
  json value_info = json::array();
  for (const auto& [name, info] : graph.value_info) value_info.push_back(value_info_record(info));
  return {{"name", graph.name},
          {"inputs", value_infos_record(graph.inputs)},
          {"outputs", value_infos_record(graph.outputs)},
          {"nodes", nodes},
          {"initializers", initializers},
          {"overridable", value_infos_record(graph.overridable_initializers)},
          {"value_info", value_info},
          {"outer_scope_inputs", graph.outer_scope_inputs}};
}

std::shared_ptr<model::Graph> graph_from_record(const json& record, const char* blob,
                                                uint64_t blob_bytes) {
  auto graph = std::make_shared<model::Graph>();
  graph->name = record.at("name").get<std::string>();
  graph->inputs = value_infos_from(record.at("inputs"));
  graph->outputs = value_infos_from(record.at("outputs"));
  for (const json& entry : record.at("nodes")) {
    model::Node node;
    node.name = entry.at("name").get<std::string>();
    node.op_type = entry.at("op").get<std::string>();
    node.domain = entry.at("domain").get<std::string>();
    node.inputs = entry.at("inputs").get<std::vector<std::string>>();
    node.outputs = entry.at("outputs").get<std::vector<std::string>>();
    for (const auto& [name, attribute] : entry.at("attributes").items())
      node.attributes[name] = attribute_from(attribute, blob, blob_bytes);
    graph->nodes.push_back(std::move(node));
  }
  for (const auto& [name, tensor] : record.at("initializers").items())
    graph->initializers[name] = tensor_from(tensor, blob, blob_bytes);
  graph->overridable_initializers = value_infos_from(record.at("overridable"));
  for (const json& info : record.at("value_info")) {
    model::ValueInfo value = value_info_from(info);
    graph->value_info[value.name] = value;
  }
  graph->outer_scope_inputs = record.at("outer_scope_inputs").get<std::vector<std::string>>();
  return graph;
}

}  // namespace inferlab::runtime
