// Shape inference over the main graph; see shape_inference.h. One idea: a
// value is either resolved (dtype + concrete shape, maybe contents) or not,
// and a node is only inferred when all of its inputs are resolved.
#include "inferlab/runtime/shape_inference.h"

#include <optional>
#include <set>

#include <fmt/format.h>

namespace inferlab::runtime {

namespace {

using kernels::InferContext;
using kernels::KernelContext;
using kernels::NodeInfo;
using kernels::ValueFacts;

// Ops whose outputs must not be computed ahead of running: control flow
// (subgraphs run only in the executor) and anything random.
bool is_foldable_op(const std::string& op_type) {
  static const std::set<std::string> kNotFoldable = {"If",
                                                     "Loop",
                                                     "Scan",
                                                     "Dropout",
                                                     "RandomNormal",
                                                     "RandomUniform",
                                                     "RandomNormalLike",
                                                     "RandomUniformLike",
                                                     "Multinomial",
                                                     "Bernoulli"};
  return kNotFoldable.count(op_type) == 0;
}

// Ops whose outputs depend only on their input's shape, not its contents.
bool reads_only_shapes(const std::string& op_type) {
  return op_type == "Shape" || op_type == "Size";
}

bool has_graph_attribute(const model::Node& node) {
  for (const auto& [key, attribute] : node.attributes) {
    if (attribute.kind == model::Attribute::Kind::kGraph) return true;
  }
  return false;
}

int64_t shape_bytes(DataType dtype, const Shape& shape, const std::string& what) {
  return checked_mul(shape_numel(shape), static_cast<int64_t>(dtype_size(dtype)), what);
}

class ShapeInferrer {
 public:
  ShapeInferrer(const model::Model& model, const ShapeInferenceOptions& options,
                const kernels::OpRegistry& registry)
      : model_(model), graph_(*model.graph), options_(options), registry_(registry) {}

  ShapeInferenceResult run() {
    seed_initializers();
    seed_inputs();
    for (const model::Node& node : graph_.nodes) infer_node(node);
    for (const model::ValueInfo& output : graph_.outputs) record_unresolved_if_missing(output.name);
    return std::move(result_);
  }

 private:
  struct Fact {
    DataType dtype = DataType::kUndefined;
    std::optional<Shape> shape;  // nullopt: unresolved
    const Tensor* value = nullptr;
  };

  void seed_initializers() {
    for (const auto& [name, tensor] : graph_.initializers) {
      auto [it, inserted] = result_.known_values.emplace(name, tensor);
      // A weight a session released after prepacking has no data: its type
      // and shape are known, its contents are not (nothing folds it).
      resolve(name, tensor.dtype(), tensor.shape(), tensor.has_data() ? &it->second : nullptr);
    }
  }

  void seed_inputs() {
    for (const model::ValueInfo& input : graph_.inputs) {
      auto given = options_.input_shapes.find(input.name);
      if (given != options_.input_shapes.end()) {
        resolve(input.name, input.dtype, given->second, nullptr);
      } else if (input.is_static()) {
        resolve(input.name, input.dtype, input.static_shape(), nullptr);
      } else {
        leave_unresolved(input.name, input.dtype);
      }
    }
  }

  void resolve(const std::string& name, DataType dtype, const Shape& shape, const Tensor* value) {
    facts_[name] = Fact{dtype, shape, value};
    result_.unresolved.erase(name);
    model::ValueInfo info;
    info.name = name;
    info.dtype = dtype;
    info.has_shape = true;
    for (int64_t dim : shape) info.dims.push_back(model::Dim::fixed(dim));
    result_.values[name] = std::move(info);
  }

  void leave_unresolved(const std::string& name, DataType dtype) {
    if (name.empty()) return;
    facts_[name] = Fact{dtype, std::nullopt, nullptr};
    const model::ValueInfo* declared = graph_.find_value_info(name);
    model::ValueInfo info = declared ? *declared : model::ValueInfo{};
    info.name = name;
    if (dtype != DataType::kUndefined) info.dtype = dtype;
    result_.values[name] = std::move(info);
    result_.unresolved.insert(name);
  }

  void record_unresolved_if_missing(const std::string& name) {
    if (facts_.count(name) == 0) leave_unresolved(name, DataType::kUndefined);
  }

  void leave_outputs_unresolved(const model::Node& node) {
    for (const std::string& output : node.outputs) leave_unresolved(output, DataType::kUndefined);
  }

  // Null when some input is unresolved (then the node cannot be inferred).
  std::optional<std::vector<ValueFacts>> input_facts(const model::Node& node) const {
    std::vector<ValueFacts> inputs;
    for (const std::string& name : node.inputs) {
      if (name.empty()) {
        inputs.push_back(ValueFacts{});
        continue;
      }
      auto it = facts_.find(name);
      if (it == facts_.end() || !it->second.shape) return std::nullopt;
      inputs.push_back(ValueFacts{it->second.dtype, *it->second.shape, it->second.value});
    }
    return inputs;
  }

  [[noreturn]] void rethrow_naming_model(const NodeInfo& info) const {
    try {
      throw;
    } catch (const Error& error) {
      throw Error(error.code(), fmt::format("{}: {}", model_.source, error.what()));
    } catch (const std::exception& error) {
      throw Error(ErrorCode::kRuntime,
                  fmt::format("{}: {}: {}", model_.source, info.describe(), error.what()));
    }
  }

  void infer_node(const model::Node& node) {
    const int64_t opset = model_.opset_of(node.domain);
    const kernels::OpKernel* kernel = registry_.find(node.domain, node.op_type, opset);
    std::optional<std::vector<ValueFacts>> inputs = input_facts(node);
    if (kernel == nullptr || !inputs) return leave_outputs_unresolved(node);
    if (has_graph_attribute(node)) return infer_control_flow(node, *inputs);

    const NodeInfo info(node.name, node.op_type, opset, node.attributes);
    InferContext context(info, *inputs, node.outputs.size());
    try {
      kernel->infer(context);
    } catch (const Error& error) {
      // A rule that needs contents not known before running: the node's
      // outputs are found at run time (real faults surface there too).
      if (error.code() == ErrorCode::kUnsupported) return leave_outputs_unresolved(node);
      rethrow_naming_model(info);
    } catch (const std::exception&) {
      rethrow_naming_model(info);
    }
    const bool all_resolved = record_outputs(node, info, context);
    if (all_resolved && should_fold(node, *inputs)) fold(node, info, *kernel, *inputs);
  }

  // Returns whether every requested output got a concrete shape.
  bool record_outputs(const model::Node& node, const NodeInfo& info, const InferContext& context) {
    bool all_resolved = true;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::string& name = node.outputs[i];
      if (name.empty()) continue;
      const auto& output = context.outputs()[i];
      if (!output || !output->second) {
        leave_unresolved(name, output ? output->first : DataType::kUndefined);
        all_resolved = false;
        continue;
      }
      const std::string what = fmt::format("{} output '{}'", info.describe(), name);
      if (shape_bytes(output->first, *output->second, what) > options_.max_tensor_bytes) {
        fail(ErrorCode::kLimitExceeded, "{}: {} would be {} ({} bytes), over the limit of {} bytes",
             model_.source, what, shape_to_string(*output->second),
             shape_bytes(output->first, *output->second, what), options_.max_tensor_bytes);
      }
      resolve(name, output->first, *output->second, nullptr);
    }
    return all_resolved;
  }

  bool should_fold(const model::Node& node, const std::vector<ValueFacts>& inputs) const {
    if (!is_foldable_op(node.op_type)) return false;
    if (node.op_type == "Constant" || reads_only_shapes(node.op_type)) return true;
    int64_t elements = 0;
    for (const ValueFacts& input : inputs) {
      if (input.dtype == DataType::kUndefined) continue;
      if (input.value == nullptr) return false;
      elements += input.value->numel();
    }
    for (const std::string& output : node.outputs) {
      if (output.empty()) continue;
      elements += shape_numel(*facts_.at(output).shape);
    }
    return elements <= options_.max_fold_elements;
  }

  void fold(const model::Node& node, const NodeInfo& info, const kernels::OpKernel& kernel,
            const std::vector<ValueFacts>& inputs) {
    // Shape/Size see a data-less stand-in of the right shape: they never read it.
    std::vector<Tensor> stand_ins(inputs.size());
    std::vector<const Tensor*> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ValueFacts& input = inputs[i];
      if (input.value == nullptr && input.dtype != DataType::kUndefined &&
          reads_only_shapes(node.op_type)) {
        stand_ins[i] = Tensor::borrow(input.dtype, input.shape, nullptr);
        values.push_back(&stand_ins[i]);
      } else {
        values.push_back(input.dtype == DataType::kUndefined ? nullptr : input.value);
      }
    }
    std::vector<Tensor> outputs(node.outputs.size());
    KernelContext context(info, values, outputs, nullptr, options_.max_tensor_bytes);
    try {
      kernel.compute(context);
    } catch (const std::exception&) {
      rethrow_naming_model(info);
    }
    for (size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
      if (node.outputs[i].empty() || outputs[i].empty()) continue;
      auto [it, inserted] = result_.known_values.insert_or_assign(node.outputs[i], outputs[i]);
      resolve(node.outputs[i], it->second.dtype(), it->second.shape(), &it->second);
    }
  }

  // If/Loop: output types come from the subgraphs' declared outputs; shapes
  // are resolved only when every branch declares the same static shape.
  void infer_control_flow(const model::Node& node, const std::vector<ValueFacts>& inputs) {
    std::vector<const model::Graph*> bodies;
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) {
        bodies.push_back(attribute.g.get());
      }
    }
    // Loop body outputs start with the condition; loop outputs do not.
    const size_t offset = node.op_type == "Loop" ? 1 : 0;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const std::vector<const model::ValueInfo*> declared = declared_outputs(bodies, i + offset);
      DataType dtype = declared.empty() ? DataType::kUndefined : declared.front()->dtype;
      if (dtype == DataType::kUndefined && offset == 1 && i + 2 < inputs.size()) {
        dtype = inputs[i + 2].dtype;  // a loop-carried value keeps its initial type
      }
      const bool same_static = node.op_type == "If" && declared.size() == bodies.size() &&
                               !declared.empty() && all_same_static(declared);
      if (same_static && !node.outputs[i].empty()) {
        resolve(node.outputs[i], dtype, declared.front()->static_shape(), nullptr);
      } else {
        leave_unresolved(node.outputs[i], dtype);
      }
    }
  }

  static std::vector<const model::ValueInfo*> declared_outputs(
      const std::vector<const model::Graph*>& bodies, size_t index) {
    std::vector<const model::ValueInfo*> declared;
    for (const model::Graph* body : bodies) {
      if (index < body->outputs.size()) declared.push_back(&body->outputs[index]);
    }
    return declared;
  }

  static bool all_same_static(const std::vector<const model::ValueInfo*>& infos) {
    for (const model::ValueInfo* info : infos) {
      if (!info->is_static() || info->static_shape() != infos.front()->static_shape()) return false;
      if (info->dtype != infos.front()->dtype) return false;
    }
    return true;
  }

  const model::Model& model_;
  const model::Graph& graph_;
  const ShapeInferenceOptions& options_;
  const kernels::OpRegistry& registry_;
  std::unordered_map<std::string, Fact> facts_;
  ShapeInferenceResult result_;
};

}  // namespace

const model::ValueInfo* ShapeInferenceResult::find_resolved(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end() || unresolved.count(name) != 0) return nullptr;
  return &it->second;
}

ShapeInferenceResult infer_shapes(const model::Model& model, const ShapeInferenceOptions& options,
                                  const kernels::OpRegistry& registry) {
  if (!model.graph) fail(ErrorCode::kInvalidModel, "{}: the model has no graph", model.source);
  return ShapeInferrer(model, options, registry).run();
}

}  // namespace inferlab::runtime
