// FLOPs and bytes of a node from static shapes (see cost_model.h).
#include "inferlab/profile/cost_model.h"

#include <algorithm>
#include <map>
#include <vector>

#include "inferlab/core/error.h"

namespace inferlab::profile {

namespace {

using ValueMap = std::unordered_map<std::string, model::ValueInfo>;

template <typename Dims>
double product(const Dims& shape, size_t from = 0) {
  double result = 1;
  for (size_t i = from; i < shape.size(); ++i) result *= static_cast<double>(shape[i]);
  return result;
}

int64_t int_attribute(const model::Node& node, const std::string& name, int64_t fallback) {
  auto it = node.attributes.find(name);
  return it == node.attributes.end() ? fallback : it->second.i;
}

// Shapes of the node's inputs and outputs (empty Shape for an omitted
// optional value); false when one that is present is not static.
bool static_shapes(const std::vector<std::string>& names, const ValueMap& values,
                   std::vector<Shape>& shapes, double& bytes) {
  for (const std::string& name : names) {
    if (name.empty()) {
      shapes.emplace_back();
      continue;
    }
    auto it = values.find(name);
    if (it == values.end() || !it->second.is_static() || it->second.dtype == DataType::kUndefined) {
      return false;
    }
    shapes.push_back(it->second.static_shape());
    bytes += product(shapes.back()) * static_cast<double>(dtype_size(it->second.dtype));
  }
  return true;
}

// Multiply-accumulates of the operators that do them; 0 for the rest.
double node_macs(const model::Node& node, const std::vector<Shape>& in,
                 const std::vector<Shape>& out) {
  const std::string& op = node.op_type;
  auto has = [&](size_t i) { return i < in.size() && !in[i].empty(); };
  if (out.empty() || out[0].empty()) return 0;
  if ((op == "Conv" || op == "FusedConv" || op == "NhwcFusedConv") && has(1)) {
    return product(out[0]) * product(in[1], 1);  // W: [Cout, Cin/group, k...]
  }
  if (op == "ConvTranspose" && has(0) && has(1)) {
    return product(in[0]) * product(in[1], 1);  // W: [Cin, Cout/group, k...]
  }
  if ((op == "Gemm" || op == "FusedGemm") && has(0) && in[0].size() == 2) {
    const bool transposed = int_attribute(node, "transA", 0) != 0;
    return product(out[0]) * static_cast<double>(in[0][transposed ? 0 : 1]);
  }
  if ((op == "MatMul" || op == "FusedMatMul") && has(0)) {
    const Shape& a = in[0];
    const bool transposed = int_attribute(node, "transA", 0) != 0 && a.size() >= 2;
    return product(out[0]) * static_cast<double>(transposed ? a[a.size() - 2] : a.back());
  }
  if (op == "Einsum") {
    auto it = node.attributes.find("equation");
    if (it == node.attributes.end()) return 0;
    return einsum_macs(it->second.s, in);
  }
  if (op == "Attention" && has(0) && has(1) && in[0].size() == 3 && out[0].size() == 3) {
    const double batch = static_cast<double>(in[0][0]);
    const double sequence = static_cast<double>(in[0][1]);
    const double hidden = static_cast<double>(out[0][2]);
    // Q|K|V projection, then per head Q.K^T and P.V (S x S x head_size each).
    return batch * sequence * product(in[1]) + 2 * batch * sequence * sequence * hidden;
  }
  return 0;
}

bool is_gather(const std::string& op_type) {
  return op_type == "Gather" || op_type == "GatherElements" || op_type == "GatherND";
}

std::vector<std::string> split_operands(const std::string& text) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ',') {
      parts.emplace_back();
    } else if (c != ' ') {
      parts.back() += c;
    }
  }
  return parts;
}

}  // namespace

double einsum_macs(const std::string& equation, const std::vector<Shape>& operand_shapes) {
  const size_t arrow = equation.find("->");
  const std::vector<std::string> operands = split_operands(equation.substr(0, arrow));
  if (operands.size() != operand_shapes.size()) {
    fail(ErrorCode::kInvalidArgument, "Einsum '{}' names {} operands, {} given", equation,
         operands.size(), operand_shapes.size());
  }
  if (operands.size() < 2) return 0;
  std::map<char, int64_t> label_sizes;
  std::vector<int64_t> ellipsis;  // broadcast, right-aligned
  for (size_t k = 0; k < operands.size(); ++k) {
    std::string term = operands[k];
    const size_t dots = term.find("...");
    const Shape& shape = operand_shapes[k];
    const size_t labels = term.size() - (dots == std::string::npos ? 0 : 3);
    if (labels > shape.size() || (dots == std::string::npos && labels != shape.size())) {
      fail(ErrorCode::kInvalidArgument, "Einsum '{}': operand {} has rank {}", equation, k,
           shape.size());
    }
    const size_t ellipsis_rank = shape.size() - labels;
    if (ellipsis.size() < ellipsis_rank)
      ellipsis.insert(ellipsis.begin(), ellipsis_rank - ellipsis.size(), 1);
    size_t dim = 0;
    for (size_t i = 0; i < term.size();) {
      if (term.compare(i, 3, "...") == 0) {
        for (size_t e = 0; e < ellipsis_rank; ++e, ++dim) {
          int64_t& slot = ellipsis[ellipsis.size() - ellipsis_rank + e];
          slot = std::max(slot, shape[dim]);
        }
        i += 3;
        continue;
      }
      int64_t& size = label_sizes[term[i]];
      size = std::max(size, shape[dim]);
      ++dim;
      ++i;
    }
  }
  double macs = product(ellipsis);
  for (const auto& [label, size] : label_sizes) macs *= static_cast<double>(size);
  return macs;
}

NodeCost node_cost(const model::Node& node, const ValueMap& values) {
  NodeCost cost;
  std::vector<Shape> inputs;
  std::vector<Shape> outputs;
  double bytes = 0;
  if (!static_shapes(node.inputs, values, inputs, bytes) ||
      !static_shapes(node.outputs, values, outputs, bytes)) {
    return cost;
  }
  try {
    cost.flops = 2 * node_macs(node, inputs, outputs);
  } catch (const Error&) {
    return cost;  // an equation that does not fit: unknown, not fatal
  }
  // A gather reads only the elements it writes, not its whole data input
  // (an embedding table).
  if (is_gather(node.op_type) && !node.inputs.empty() && !node.inputs[0].empty() &&
      !outputs.empty()) {
    const double element = static_cast<double>(dtype_size(values.at(node.inputs[0]).dtype));
    bytes += (product(outputs[0]) - product(inputs[0])) * element;
  }
  cost.bytes = bytes;
  cost.known = true;
  return cost;
}

std::unordered_map<std::string, NodeCost> graph_costs(const model::Graph& graph,
                                                      const ValueMap& values) {
  std::unordered_map<std::string, NodeCost> costs;
  for (const model::Node& node : graph.nodes) costs[node.name] = node_cost(node, values);
  return costs;
}

}  // namespace inferlab::profile
