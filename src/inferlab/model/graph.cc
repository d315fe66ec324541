#include "inferlab/model/graph.h"

#include <fmt/format.h>

namespace inferlab::model {

bool ValueInfo::is_static() const {
  if (!has_shape) return false;
  for (const Dim& dim : dims) {
    if (!dim.is_static()) return false;
  }
  return true;
}

Shape ValueInfo::static_shape() const {
  Shape shape;
  shape.reserve(dims.size());
  for (const Dim& dim : dims) shape.push_back(dim.value);
  return shape;
}

std::string ValueInfo::to_string() const {
  std::string text(dtype_name(dtype));
  if (!has_shape) return text + "[?]";
  text += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    if (dims[i].is_static())
      text += std::to_string(dims[i].value);
    else
      text += dims[i].symbol.empty() ? "?" : dims[i].symbol;
  }
  return text + "]";
}

const ValueInfo* Graph::find_value_info(const std::string& value_name) const {
  for (const ValueInfo& info : inputs) {
    if (info.name == value_name) return &info;
  }
  for (const ValueInfo& info : outputs) {
    if (info.name == value_name) return &info;
  }
  auto it = value_info.find(value_name);
  return it == value_info.end() ? nullptr : &it->second;
}

int64_t domain_opset(const std::map<std::string, int64_t>& opsets, const std::string& domain) {
  const bool default_domain = domain.empty() || domain == "ai.onnx";
  auto it = opsets.find(default_domain ? "" : domain);
  if (it == opsets.end() && default_domain) it = opsets.find("ai.onnx");
  return it == opsets.end() ? 0 : it->second;
}

int64_t Model::default_opset() const { return domain_opset(opsets, ""); }

int64_t Model::opset_of(const std::string& domain) const { return domain_opset(opsets, domain); }

}  // namespace inferlab::model
