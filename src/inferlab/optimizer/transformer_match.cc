// Helpers of the transformer fusions (see transformer_match.h).
#include "inferlab/optimizer/transformer_match.h"

#include <algorithm>
#include <cmath>

namespace inferlab::optimizer::transformer {

bool is_op(const model::Node& node, const char* op) {
  return node.op_type == op && (node.domain.empty() || node.domain == "ai.onnx");
}

int Matcher::producer_of(const std::string& value, const char* op) const {
  if (value.empty()) return -1;
  const int index = editor.producer(value);
  if (index < 0 || !is_op(node(index), op)) return -1;
  return index;
}

int Matcher::sole_consumer(const std::string& value, const char* op) const {
  if (value.empty() || editor.is_graph_output(value) || editor.use_count(value) != 1) return -1;
  const std::vector<int>& readers = editor.consumers(value);
  if (readers.size() != 1) return -1;
  if (op != nullptr && !is_op(node(readers[0]), op)) return -1;
  return readers[0];
}

bool Matcher::read_only_by(const std::string& value, const std::vector<int>& readers) const {
  if (editor.is_graph_output(value)) return false;
  int reads = 0;
  for (int reader : editor.consumers(value)) {
    if (std::find(readers.begin(), readers.end(), reader) == readers.end()) return false;
    for (const std::string& input : node(reader).inputs) reads += input == value ? 1 : 0;
  }
  return reads == editor.use_count(value);
}

const Tensor* Matcher::constant(const std::string& value) const {
  if (value.empty()) return nullptr;
  if (const Tensor* t = editor.constant(value)) return t;
  if (editor.is_graph_input(value)) return nullptr;
  return context.known_value(value);
}

std::optional<double> Matcher::scalar(const std::string& value) const {
  const Tensor* t = constant(value);
  if (t == nullptr || t->numel() != 1) return std::nullopt;
  if (t->dtype() != DataType::kFloat32 && t->dtype() != DataType::kFloat64) return std::nullopt;
  return t->element_as_double(0);
}

bool Matcher::scalar_near(const std::string& value, double want, double tolerance) const {
  const std::optional<double> got = scalar(value);
  return got && std::fabs(*got - want) <= tolerance * std::max(1.0, std::fabs(want));
}

std::optional<Shape> Matcher::shape(const std::string& value) const {
  const model::ValueInfo* info = context.static_info(value);
  if (info == nullptr) return std::nullopt;
  return info->static_shape();
}

std::string Matcher::other_input(const model::Node& node, const std::string& value) {
  if (node.inputs.size() != 2) return "";
  if (node.inputs[0] == value) return node.inputs[1] == value ? "" : node.inputs[1];
  return node.inputs[1] == value ? node.inputs[0] : "";
}

int64_t default_opset(const PassContext& context) { return context.model.default_opset(); }

void import_domain(PassContext& context, const std::string& domain) {
  if (context.model.opset_of(domain) == 0) context.model.opsets[domain] = 1;
}

model::Attribute int_attribute(int64_t value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInt;
  a.i = value;
  return a;
}

model::Attribute float_attribute(float value) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kFloat;
  a.f = value;
  return a;
}

model::Attribute ints_attribute(std::vector<int64_t> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}

model::Attribute strings_attribute(std::vector<std::string> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kStrings;
  a.strings = std::move(values);
  return a;
}

const Tensor* channel_vector(const Matcher& m, const std::string& value, int64_t channels) {
  const Tensor* t = m.constant(value);
  if (t == nullptr || t->dtype() != DataType::kFloat32 || t->numel() != channels ||
      t->shape().empty()) {
    return nullptr;
  }
  for (size_t d = 0; d + 1 < t->shape().size(); ++d) {
    if (t->shape()[d] != 1) return nullptr;
  }
  return t;
}

std::string add_channel_vector(GraphEditor& editor, const std::string& base, const Tensor& t) {
  Tensor flat(DataType::kFloat32, Shape{t.numel()});
  std::copy(t.data<float>(), t.data<float>() + t.numel(), flat.data<float>());
  return editor.add_constant(base, std::move(flat));
}

std::string replace_nodes(GraphEditor& editor, std::vector<int> covered,
                          std::vector<model::Node> replacement, const std::string& final_output,
                          size_t fused) {
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  const auto& nodes = editor.graph().nodes;
  std::vector<std::string> names;  // covered ONNX nodes, through earlier fusions
  for (int index : covered) {
    const model::Node& node = nodes[static_cast<size_t>(index)];
    auto it = node.attributes.find("fused_nodes");
    if (it == node.attributes.end()) {
      names.push_back(node.name);
    } else {
      names.insert(names.end(), it->second.strings.begin(), it->second.strings.end());
    }
  }
  model::Node& first = replacement.at(fused);
  first.name = nodes[static_cast<size_t>(covered.front())].name;
  first.attributes["fused_nodes"] = strings_attribute(names);
  const std::string first_name = first.name;
  const std::string result = editor.fresh_name(final_output + "_fused");
  replacement.back().outputs.at(0) = result;
  for (model::Node& node : replacement) {
    if (node.name.empty()) node.name = editor.fresh_name(first_name + "/" + node.op_type);
    editor.add_node(std::move(node));
  }
  editor.replace_all_uses(final_output, result);
  // Readers first: a covered node goes once nothing reads its outputs.
  std::vector<int> left = covered;
  while (!left.empty()) {
    const size_t before = left.size();
    for (size_t k = left.size(); k-- > 0;) {
      bool used = false;
      for (const std::string& out : nodes[static_cast<size_t>(left[k])].outputs) {
        used = used || (!out.empty() && editor.use_count(out) > 0);
      }
      if (used) continue;
      editor.remove_node(left[k]);
      left.erase(left.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (left.size() == before) editor.remove_node(left.front());  // reports the reader
  }
  return first_name;
}

}  // namespace inferlab::optimizer::transformer
