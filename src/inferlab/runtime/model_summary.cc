// Model summary for `inspect`; see model_summary.h.
#include "inferlab/runtime/model_summary.h"

#include <algorithm>
#include <optional>

#include "inferlab/kernels/registry.h"
#include "inferlab/runtime/input_check.h"

namespace inferlab::runtime {

namespace {

std::optional<Shape> resolved_shape(const ShapeInferenceResult& shapes, const std::string& name) {
  const model::ValueInfo* info = shapes.find_resolved(name);
  if (info == nullptr) return std::nullopt;
  return info->static_shape();
}

int64_t product(Shape::const_iterator begin, Shape::const_iterator end) {
  int64_t result = 1;
  for (auto it = begin; it != end; ++it) result = checked_mul(result, *it, "FLOPs");
  return result;
}

// Multiply-accumulates of an Einsum: the product of every index's size
// (ellipsis dims included) for each of the (operands - 1) multiplications.
int64_t einsum_multiply_accumulates(const std::string& equation,
                                    const std::vector<Shape>& operands) {
  const std::string lhs = equation.substr(0, equation.find("->"));
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else if (c != ' ')
      terms.back() += c;
  }
  if (terms.size() != operands.size() || operands.size() < 2) return 0;
  std::map<char, int64_t> sizes;
  Shape ellipsis;  // broadcast ellipsis dims, right-aligned
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string& term = terms[i];
    const Shape& shape = operands[i];
    const size_t dots = term.find("...");
    const std::string letters =
        dots == std::string::npos ? term : term.substr(0, dots) + term.substr(dots + 3);
    if (letters.size() > shape.size()) return -1;
    const size_t ellipsis_rank = shape.size() - letters.size();
    const size_t before = dots == std::string::npos ? letters.size() : dots;
    for (size_t j = 0; j < letters.size(); ++j) {
      const size_t axis = j < before ? j : j + ellipsis_rank;
      sizes[letters[j]] = std::max(sizes[letters[j]], shape[axis]);
    }
    if (ellipsis.size() < ellipsis_rank)
      ellipsis.insert(ellipsis.begin(), ellipsis_rank - ellipsis.size(), 1);
    for (size_t j = 0; j < ellipsis_rank; ++j) {
      int64_t& dim = ellipsis[ellipsis.size() - ellipsis_rank + j];
      dim = std::max(dim, shape[before + j]);
    }
  }
  int64_t macs = product(ellipsis.begin(), ellipsis.end());
  for (const auto& [letter, size] : sizes) macs = checked_mul(macs, size, "FLOPs");
  return checked_mul(macs, static_cast<int64_t>(operands.size() - 1), "FLOPs");
}

int64_t einsum_node_macs(const model::Node& node, const ShapeInferenceResult& shapes) {
  auto equation = node.attributes.find("equation");
  if (equation == node.attributes.end()) return -1;
  std::vector<Shape> operands;
  for (const std::string& input : node.inputs) {
    std::optional<Shape> shape = resolved_shape(shapes, input);
    if (!shape) return -1;
    operands.push_back(*shape);
  }
  return einsum_multiply_accumulates(equation->second.s, operands);
}

bool is_counted_op(const std::string& op_type) {
  return op_type == "Conv" || op_type == "ConvTranspose" || op_type == "Gemm" ||
         op_type == "MatMul" || op_type == "Einsum";
}

}  // namespace

int64_t node_multiply_accumulates(const model::Node& node, const ShapeInferenceResult& shapes) {
  if (!is_counted_op(node.op_type) || !node.domain.empty()) return 0;
  if (node.op_type == "Einsum") return einsum_node_macs(node, shapes);
  if (node.inputs.size() < 2 || node.outputs.empty()) return -1;
  const std::optional<Shape> a = resolved_shape(shapes, node.inputs[0]);
  const std::optional<Shape> b = resolved_shape(shapes, node.inputs[1]);
  const std::optional<Shape> y = resolved_shape(shapes, node.outputs[0]);
  if (!a || !b || !y || a->empty() || b->empty()) return -1;
  const int64_t output_elements = product(y->begin(), y->end());
  if (node.op_type == "Conv")
    return checked_mul(output_elements, product(b->begin() + 1, b->end()), "FLOPs");
  if (node.op_type == "ConvTranspose") {
    return checked_mul(product(a->begin(), a->end()), product(b->begin() + 1, b->end()), "FLOPs");
  }
  if (node.op_type == "Gemm") {
    auto trans_a = node.attributes.find("transA");
    const bool transposed = trans_a != node.attributes.end() && trans_a->second.i != 0;
    if (a->size() != 2) return -1;
    return checked_mul(output_elements, transposed ? (*a)[0] : (*a)[1], "FLOPs");
  }
  return checked_mul(output_elements, a->back(), "FLOPs");  // MatMul: K is A's last dim
}

namespace {

void count_operators(const model::Graph& graph, ModelSummary& summary) {
  for (const model::Node& node : graph.nodes) {
    ++summary
          .operator_counts[node.domain.empty() ? node.op_type : node.domain + "." + node.op_type];
    ++summary.node_count;
    auto value = node.attributes.find("value");
    if (node.op_type == "Constant" && value != node.attributes.end() &&
        value->second.kind == model::Attribute::Kind::kTensor) {
      summary.parameter_count += value->second.t.numel();
      summary.parameter_bytes += static_cast<int64_t>(value->second.t.nbytes());
    }
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
        count_operators(*attribute.g, summary);
      }
    }
  }
  for (const auto& [name, tensor] : graph.initializers) {
    summary.parameter_count += tensor.numel();
    summary.parameter_bytes += static_cast<int64_t>(tensor.nbytes());
  }
}

// Declared inputs with the given shapes applied and a leading symbolic dim set to 1.
std::vector<model::ValueInfo> inference_inputs(const std::vector<model::ValueInfo>& inputs) {
  std::vector<model::ValueInfo> fixed = inputs;
  for (model::ValueInfo& input : fixed) {
    if (input.has_shape && !input.dims.empty() && !input.dims[0].is_static()) {
      input.dims[0] = model::Dim::fixed(1);
    }
  }
  return fixed;
}

void count_flops(const model::Graph& graph, ModelSummary& summary) {
  for (const model::Node& node : graph.nodes) {
    int64_t macs = -1;
    try {
      macs = node_multiply_accumulates(node, summary.shapes);
    } catch (const Error&) {
      macs = -1;  // overflow: report as unknown rather than a wrong number
    }
    if (macs < 0) {
      summary.flops_unknown_nodes.push_back(node.name);
    } else if (__builtin_add_overflow(summary.flops, 2 * macs, &summary.flops)) {
      summary.flops_unknown_nodes.push_back(node.name);
    }
  }
}

}  // namespace

ModelSummary summarize_model(const model::Model& model, const SummaryOptions& options) {
  if (!model.graph) fail(ErrorCode::kInvalidModel, "{}: the model has no graph", model.source);
  const model::Graph& graph = *model.graph;
  const kernels::OpRegistry& registry = kernels::OpRegistry::reference();
  ModelSummary summary;
  summary.inputs = graph.inputs;
  summary.inferred_inputs =
      inference_inputs(apply_input_shapes(graph, options.input_shapes, model.source));
  count_operators(graph, summary);
  summary.unsupported = find_unsupported_ops(model, registry);

  ShapeInferenceOptions shape_options;
  shape_options.input_shapes = static_input_shapes(summary.inferred_inputs);
  try {
    summary.shapes = infer_shapes(model, shape_options, registry);
  } catch (const Error& error) {
    summary.shape_error = error.what();
  }
  summary.outputs = graph.outputs;
  for (const model::ValueInfo& output : graph.outputs) {
    const model::ValueInfo* inferred = summary.shapes.find_resolved(output.name);
    summary.inferred_outputs.push_back(inferred ? *inferred : output);
  }
  count_flops(graph, summary);
  return summary;
}

}  // namespace inferlab::runtime
