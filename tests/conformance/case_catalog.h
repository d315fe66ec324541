// The catalog of ONNX conformance cases: finds every case under the data
// directory and decides, from the model file alone (read with the ONNX
// protobuf API, not with InferLab), whether it counts towards the pass bar.
// A case counts when its default-domain opset is 7..17, every node (also in
// subgraphs) is a default-domain operator from the list, and it is not
// a training-mode Dropout case (random masks cannot be compared).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace inferlab::conformance {

// The operators the issue puts in scope (issue 2, part 4).
inline const std::set<std::string>& operators_in_scope() {
  static const std::set<std::string> kOperators = {"Abs",
                                                   "Add",
                                                   "And",
                                                   "ArgMax",
                                                   "ArgMin",
                                                   "AveragePool",
                                                   "BatchNormalization",
                                                   "Cast",
                                                   "CastLike",
                                                   "Ceil",
                                                   "Clip",
                                                   "Concat",
                                                   "Constant",
                                                   "ConstantOfShape",
                                                   "Conv",
                                                   "ConvTranspose",
                                                   "Cos",
                                                   "CumSum",
                                                   "DepthToSpace",
                                                   "Div",
                                                   "Dropout",
                                                   "Einsum",
                                                   "Elu",
                                                   "Equal",
                                                   "Erf",
                                                   "Exp",
                                                   "Expand",
                                                   "Flatten",
                                                   "Floor",
                                                   "Gather",
                                                   "GatherElements",
                                                   "GatherND",
                                                   "Gemm",
                                                   "GlobalAveragePool",
                                                   "GlobalMaxPool",
                                                   "Greater",
                                                   "GreaterOrEqual",
                                                   "GRU",
                                                   "HardSigmoid",
                                                   "HardSwish",
                                                   "Identity",
                                                   "If",
                                                   "InstanceNormalization",
                                                   "LayerNormalization",
                                                   "LeakyRelu",
                                                   "Less",
                                                   "LessOrEqual",
                                                   "Log",
                                                   "LogSoftmax",
                                                   "Loop",
                                                   "LRN",
                                                   "LSTM",
                                                   "MatMul",
                                                   "Max",
                                                   "MaxPool",
                                                   "Mean",
                                                   "Min",
                                                   "Mod",
                                                   "Mul",
                                                   "Neg",
                                                   "NonMaxSuppression",
                                                   "Not",
                                                   "Or",
                                                   "Pad",
                                                   "Pow",
                                                   "PRelu",
                                                   "Range",
                                                   "Reciprocal",
                                                   "ReduceL1",
                                                   "ReduceL2",
                                                   "ReduceLogSumExp",
                                                   "ReduceMax",
                                                   "ReduceMean",
                                                   "ReduceMin",
                                                   "ReduceProd",
                                                   "ReduceSum",
                                                   "ReduceSumSquare",
                                                   "Relu",
                                                   "Reshape",
                                                   "Resize",
                                                   "Round",
                                                   "ScatterElements",
                                                   "ScatterND",
                                                   "Selu",
                                                   "Shape",
                                                   "Sigmoid",
                                                   "Sign",
                                                   "Sin",
                                                   "Size",
                                                   "Slice",
                                                   "Softmax",
                                                   "Softplus",
                                                   "Softsign",
                                                   "SpaceToDepth",
                                                   "Split",
                                                   "Sqrt",
                                                   "Squeeze",
                                                   "Sub",
                                                   "Sum",
                                                   "Tanh",
                                                   "ThresholdedRelu",
                                                   "Tile",
                                                   "TopK",
                                                   "Transpose",
                                                   "Trilu",
                                                   "Unsqueeze",
                                                   "Upsample",
                                                   "Where",
                                                   "Xor"};
  return kOperators;
}

inline constexpr int64_t kMinCountedOpset = 7;
inline constexpr int64_t kMaxCountedOpset = 17;

struct ConformanceCase {
  std::string suite;  // node, pytorch-converted, pytorch-operator, simple
  std::string name;   // test_add_bcast
  std::string dir;
  std::string model_path;
  int64_t opset = 0;                   // default-domain opset, 0 when absent
  std::vector<std::string> operators;  // distinct op types, subgraphs included
  std::string primary_operator;        // the operator the case is about, for grouping
  std::vector<std::string> test_sets;  // test_data_set_* directories, sorted
  // Graph inputs that are not initializers, in order, and those of them whose
  // declared shape has a symbolic or unknown dim.
  std::vector<std::string> runtime_inputs;
  std::vector<std::string> inputs_with_symbolic_dims;
  // Declared shapes of the graph inputs that declare one (-1: symbolic dim).
  std::map<std::string, std::vector<int64_t>> declared_input_dims;
  // Element types (ONNX numbering) the graph declares for its inputs and outputs.
  std::map<std::string, int32_t> declared_elem_types;
  // Graph inputs and outputs that are not tensors ("input 'x' is a sequence").
  std::vector<std::string> non_tensor_values;
  bool counted = false;
  std::string not_counted_kind;    // short category for the report ("opset below 7")
  std::string not_counted_reason;  // the detail ("opset 6")

  std::string id() const { return suite + "/" + name; }
};

namespace detail {

inline bool is_default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

inline void collect_nodes(const onnx::GraphProto& graph, std::vector<const onnx::NodeProto*>& out) {
  for (const auto& node : graph.node()) {
    out.push_back(&node);
    for (const auto& attribute : node.attribute()) {
      if (attribute.has_g()) collect_nodes(attribute.g(), out);
      for (const auto& subgraph : attribute.graphs()) collect_nodes(subgraph, out);
    }
  }
}

inline std::string normalized(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The longest of `candidates` whose normalized name starts `stem`, or "".
template <typename Names>
std::string longest_prefix_operator(const std::string& stem, const Names& candidates) {
  std::string best;
  for (const auto& op : candidates) {
    if (stem.rfind(normalized(op), 0) == 0 && op.size() > best.size()) best = op;
  }
  return best;
}

// The operator a case is named after, to route its failures to one kernel:
// the longest operator of the case that starts the case name
// (test_reduce_sum_square_* -> ReduceSumSquare); for a function test expanded
// into primitives (test_softmax_axis_0_expanded) the in-scope operator it is
// named after, or "(expanded functions)"; otherwise the operator of the last
// top-level node that is not a Constant (test_tril -> Trilu).
inline std::string primary_operator(const std::string& case_name, const onnx::GraphProto& graph,
                                    const std::vector<std::string>& operators) {
  std::string stem = case_name;
  for (const std::string prefix : {"test_", "operator_"}) {
    if (stem.rfind(prefix, 0) == 0) stem = stem.substr(prefix.size());
  }
  const bool expanded = stem.size() > 9 && stem.substr(stem.size() - 9) == "_expanded";
  stem = normalized(stem);
  std::string best = longest_prefix_operator(stem, operators);
  if (expanded) {
    const std::string named = longest_prefix_operator(stem, operators_in_scope());
    if (named.size() > best.size()) best = named;
  }
  if (!best.empty()) return best;
  if (expanded) return "(expanded functions)";
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    if (graph.node(i).op_type() != "Constant") return graph.node(i).op_type();
  }
  return operators.empty() ? std::string("(none)") : operators.front();
}

inline const char* value_kind(const onnx::TypeProto& type) {
  if (type.has_sequence_type()) return "a sequence";
  if (type.has_optional_type()) return "an optional";
  if (type.has_map_type()) return "a map";
  return "a non-tensor";
}

// Records the graph's runtime inputs, their symbolic dims, the declared
// element types and any input or output that is not a tensor.
inline void read_graph_signature(const onnx::GraphProto& graph, ConformanceCase& c) {
  std::set<std::string> initializers;
  for (const auto& tensor : graph.initializer()) initializers.insert(tensor.name());
  for (const auto& input : graph.input()) {
    if (initializers.count(input.name())) continue;
    c.runtime_inputs.push_back(input.name());
    if (!input.type().has_tensor_type()) {
      c.non_tensor_values.push_back("input '" + input.name() + "' is " + value_kind(input.type()));
      continue;
    }
    const auto& type = input.type().tensor_type();
    c.declared_elem_types[input.name()] = type.elem_type();
    bool is_static = type.has_shape();
    std::vector<int64_t> dims;
    for (const auto& dim : type.shape().dim()) {
      is_static = is_static && dim.has_dim_value();
      dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    }
    if (type.has_shape()) c.declared_input_dims[input.name()] = dims;
    if (!is_static) c.inputs_with_symbolic_dims.push_back(input.name());
  }
  for (const auto& output : graph.output()) {
    if (output.type().has_tensor_type()) {
      c.declared_elem_types[output.name()] = output.type().tensor_type().elem_type();
    } else {
      c.non_tensor_values.push_back("output '" + output.name() + "' is " +
                                    value_kind(output.type()));
    }
  }
}

// Sets counted / not_counted_* from the parsed model.
inline void classify(ConformanceCase& c, const onnx::ModelProto& model,
                     const std::vector<const onnx::NodeProto*>& nodes) {
  auto exclude = [&c](std::string kind, std::string reason) {
    c.counted = false;
    c.not_counted_kind = std::move(kind);
    c.not_counted_reason = std::move(reason);
  };
  for (const auto& opset : model.opset_import()) {
    if (is_default_domain(opset.domain())) c.opset = opset.version();
  }
  std::set<std::string> foreign_domains;
  std::set<std::string> out_of_scope;
  for (const auto* node : nodes) {
    if (!is_default_domain(node->domain())) {
      foreign_domains.insert(node->domain());
    } else if (!operators_in_scope().count(node->op_type())) {
      out_of_scope.insert(node->op_type());
    }
  }
  c.counted = true;
  if (c.name.rfind("test_training_dropout", 0) == 0) {
    exclude("training-mode Dropout (random masks)", "random Dropout masks cannot be compared");
  } else if (c.opset == 0) {
    exclude("no default-domain opset", "the model imports no default-domain opset");
  } else if (c.opset < kMinCountedOpset) {
    exclude("opset below 7", "opset " + std::to_string(c.opset));
  } else if (c.opset > kMaxCountedOpset) {
    exclude("opset above 17", "opset " + std::to_string(c.opset));
  } else if (!foreign_domains.empty()) {
    exclude("non-default domain", "domain '" + *foreign_domains.begin() + "'");
  } else if (!out_of_scope.empty()) {
    std::string ops;
    for (const auto& op : out_of_scope) ops += (ops.empty() ? "" : ", ") + op;
    exclude("operator not in scope", ops);
  }
}

}  // namespace detail

// Reads one case directory; a model that does not parse is listed, not counted.
inline ConformanceCase load_case(const std::filesystem::path& case_dir, const std::string& suite) {
  ConformanceCase c;
  c.suite = suite;
  c.name = case_dir.filename().string();
  c.dir = case_dir.string();
  c.model_path = (case_dir / "model.onnx").string();
  for (const auto& entry : std::filesystem::directory_iterator(case_dir)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      c.test_sets.push_back(entry.path().string());
    }
  }
  std::sort(c.test_sets.begin(), c.test_sets.end());
  onnx::ModelProto model;
  std::ifstream stream(c.model_path, std::ios::binary);
  if (!stream || !model.ParseFromIstream(&stream)) {
    c.not_counted_kind = "unreadable model";
    c.not_counted_reason = "model.onnx does not parse as an ONNX model";
    return c;
  }
  std::vector<const onnx::NodeProto*> nodes;
  detail::collect_nodes(model.graph(), nodes);
  std::set<std::string> operators;
  for (const auto* node : nodes) operators.insert(node->op_type());
  c.operators.assign(operators.begin(), operators.end());
  c.primary_operator = detail::primary_operator(c.name, model.graph(), c.operators);
  detail::read_graph_signature(model.graph(), c);
  detail::classify(c, model, nodes);
  if (c.counted && c.test_sets.empty()) {
    c.counted = false;
    c.not_counted_kind = "no test data";
    c.not_counted_reason = "no test_data_set_* directory";
  }
  return c;
}

inline const std::vector<std::string>& suites() {
  static const std::vector<std::string> kSuites = {"node", "pytorch-converted", "pytorch-operator",
                                                   "simple"};
  return kSuites;
}

// Every case of every suite, in a stable order (suite, then name).
inline std::vector<ConformanceCase> discover_cases(const std::string& data_dir) {
  std::vector<ConformanceCase> cases;
  for (const auto& suite : suites()) {
    const std::filesystem::path suite_dir = std::filesystem::path(data_dir) / suite;
    if (!std::filesystem::is_directory(suite_dir)) continue;
    std::vector<std::filesystem::path> case_dirs;
    for (const auto& entry : std::filesystem::directory_iterator(suite_dir)) {
      if (entry.is_directory() && std::filesystem::exists(entry.path() / "model.onnx")) {
        case_dirs.push_back(entry.path());
      }
    }
    std::sort(case_dirs.begin(), case_dirs.end());
    for (const auto& dir : case_dirs) cases.push_back(load_case(dir, suite));
  }
  return cases;
}

}  // namespace inferlab::conformance
