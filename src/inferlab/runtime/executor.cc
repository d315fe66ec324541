// Graph execution with the reference kernels; see executor.h.
#include "inferlab/runtime/executor.h"

#include <chrono>
#include <new>

#include <fmt/format.h>

#include "inferlab/kernels/kernel.h"
#include "inferlab/runtime/executor_internal.h"

namespace inferlab::runtime {

GraphExecutor::GraphExecutor(const model::Graph& graph, const kernels::OpRegistry& registry,
                             const ExecutorOptions& options, bool is_subgraph)
    : graph_(graph), options_(options), is_subgraph_(is_subgraph) {
  if (is_subgraph_ || !options_.node_caches) {
    node_caches_ = std::make_shared<NodeCaches>();
    node_caches_->caches.resize(graph_.nodes.size());
  } else {
    node_caches_ = options_.node_caches;
    if (node_caches_->caches.size() != graph_.nodes.size()) {
      fail(ErrorCode::kRuntime, "{}: shared node caches for {} nodes, the graph has {}",
           options_.source, node_caches_->caches.size(), graph_.nodes.size());
    }
  }
  options_.node_caches = nullptr;  // never handed on to subgraphs
  for (const model::ValueInfo& input : graph_.inputs) input_slots_.push_back(add_slot(input.name));
  for (const auto& [name, tensor] : graph_.initializers) {
    if (slot_of_.count(name) != 0) continue;  // a graph input shadows its default
    const int slot = add_slot(name);
    values_[slot] = tensor;
    is_constant_[slot] = true;
    constant_data_.insert(tensor.raw_data());
  }
  for (const model::Node& node : graph_.nodes) {
    for (const std::string& output : node.outputs) {
      if (output.empty()) continue;
      if (slot_of_.count(output) != 0) {
        fail(ErrorCode::kInvalidModel, "{}: value '{}' is defined twice (again by {} node '{}')",
             options_.source, output, node.op_type, node.name);
      }
      add_slot(output);
    }
  }
  compile_nodes(registry);
  for (const model::ValueInfo& output : graph_.outputs) {
    output_slots_.push_back(resolve_input(output.name, nullptr));
  }
  output_position_of_slot_.assign(values_.size(), -1);
  for (size_t i = 0; i < output_slots_.size(); ++i) {
    if (output_position_of_slot_[output_slots_[i]] < 0) {
      output_position_of_slot_[output_slots_[i]] = static_cast<int>(i);
    }
  }
  compute_release_lists();
  index_constant_readers();
  // Timed runs record into this without allocating.
  if (options_.node_timing) node_timings_.reserve(nodes_.size());
}

GraphExecutor::~GraphExecutor() = default;

int GraphExecutor::add_slot(const std::string& name) {
  const int slot = static_cast<int>(slot_names_.size());
  slot_of_.emplace(name, slot);
  slot_names_.push_back(name);
  values_.emplace_back();
  is_constant_.push_back(false);
  return slot;
}

int GraphExecutor::resolve_input(const std::string& name, const model::Node* node) {
  auto it = slot_of_.find(name);
  if (it != slot_of_.end()) return it->second;
  if (!is_subgraph_) {
    if (node == nullptr) {
      fail(ErrorCode::kInvalidModel,
           "{}: graph output '{}' is not defined by any node, input or initializer",
           options_.source, name);
    }
    fail(ErrorCode::kInvalidModel,
         "{}: {} node '{}' reads '{}', which no node, input or initializer defines",
         options_.source, node->op_type, node->name, name);
  }
  const int slot = add_slot(name);
  outer_names_.push_back(name);
  outer_slots_.push_back(slot);
  return slot;
}

void GraphExecutor::compile_nodes(const kernels::OpRegistry& registry) {
  for (const model::Node& node : graph_.nodes) {
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    const int64_t opset =
        default_domain ? options_.opset : model::domain_opset(options_.opsets, node.domain);
    const kernels::OpKernel* kernel = registry.find(node.domain, node.op_type, opset);
    if (kernel == nullptr) {
      fail(ErrorCode::kUnsupported, "{}: {} node '{}' has no kernel for opset {}", options_.source,
           node.op_type, node.name, opset);
    }
    auto compiled =
        std::make_unique<CompiledNode>(node, *kernel, opset, node_caches_->caches[nodes_.size()]);
    for (const std::string& input : node.inputs) {
      const int slot = input.empty() ? -1 : resolve_input(input, &node);
      compiled->input_slots.push_back(slot);
      if (slot >= 0) compiled->consumed_slots.push_back(slot);
    }
    for (const std::string& output : node.outputs) {
      compiled->output_slots.push_back(output.empty() ? -1 : slot_of_.at(output));
    }
    compile_subgraphs(*compiled, registry);
    if (node.op_type == "Constant") fold_constant_node(*compiled);
    nodes_.push_back(std::move(compiled));
  }
}

void GraphExecutor::compile_subgraphs(CompiledNode& compiled, const kernels::OpRegistry& registry) {
  for (const auto& [key, attribute] : compiled.node.attributes) {
    if (attribute.kind != model::Attribute::Kind::kGraph || !attribute.g) continue;
    CompiledNode::Subgraph subgraph;
    subgraph.executor = std::make_unique<GraphExecutor>(*attribute.g, registry, options_, true);
    for (const std::string& name : subgraph.executor->outer_names()) {
      const int slot = resolve_input(name, &compiled.node);
      subgraph.outer_slots.push_back(slot);
      compiled.consumed_slots.push_back(slot);
    }
    compiled.subgraphs.emplace(key, std::move(subgraph));
  }
}

void GraphExecutor::fold_constant_node(CompiledNode& compiled) {
  std::vector<Tensor> outputs(compiled.output_slots.size());
  kernels::KernelContext context(compiled.info, {}, outputs, nullptr, options_.max_tensor_bytes);
  try {
    compiled.kernel.compute(context);
  } catch (...) {
    rethrow_naming_node(compiled);
  }
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    const int slot = compiled.output_slots[i];
    if (slot < 0) continue;
    if (i >= outputs.size() || outputs[i].empty()) {
      compiled.info.fail(ErrorCode::kInvalidModel, "produced no value");
    }
    values_[slot] = outputs[i];
    is_constant_[slot] = true;
    constant_data_.insert(outputs[i].raw_data());
  }
  compiled.folded = true;
}

void GraphExecutor::compute_release_lists() {
  std::vector<int> last_use(values_.size(), -1);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (int slot : nodes_[i]->consumed_slots) last_use[slot] = static_cast<int>(i);
  }
  for (size_t slot = 0; slot < values_.size(); ++slot) {
    if (is_constant_[slot] || output_position_of_slot_[slot] >= 0) continue;
    if (last_use[slot] >= 0) {
      nodes_[last_use[slot]]->release_after.push_back(static_cast<int>(slot));
    }
  }
  // Outputs nobody reads are dropped as soon as they are produced.
  for (auto& node : nodes_) {
    if (node->folded) continue;
    for (int slot : node->output_slots) {
      if (slot >= 0 && last_use[slot] < 0 && output_position_of_slot_[slot] < 0) {
        node->release_after.push_back(slot);
      }
    }
  }
}

std::vector<Tensor> GraphExecutor::run(const std::vector<const Tensor*>& inputs,
                                       const std::vector<const Tensor*>& outer,
                                       const std::map<std::string, const Tensor*>& overrides,
                                       const std::vector<Tensor>* placed_outputs) {
  if (inputs.size() != input_slots_.size() || outer.size() != outer_slots_.size()) {
    fail(ErrorCode::kRuntime, "{}: graph '{}' takes {} inputs, {} given", options_.source,
         graph_.name, input_slots_.size(), inputs.size());
  }
  std::vector<std::pair<int, Tensor>> replaced_constants;
  auto clear_run_state = [&] {
    for (size_t slot = 0; slot < values_.size(); ++slot) {
      if (!is_constant_[slot]) values_[slot] = Tensor();
    }
    for (auto& [slot, original] : replaced_constants) values_[slot] = std::move(original);
  };
  // Kernels without a plan read constants themselves.
  if (!is_subgraph_) {
    const std::lock_guard<std::mutex> lock(node_caches_->mutex);
    keep_constants();
  }
  try {
    for (size_t i = 0; i < inputs.size(); ++i) values_[input_slots_[i]] = *inputs[i];
    for (size_t i = 0; i < outer.size(); ++i) values_[outer_slots_[i]] = *outer[i];
    for (const auto& [name, tensor] : overrides) {
      auto it = slot_of_.find(name);
      if (it == slot_of_.end() || !is_constant_[it->second]) continue;
      replaced_constants.emplace_back(it->second, values_[it->second]);
      values_[it->second] = *tensor;
    }
    if (options_.node_timing) {
      run_timed(placed_outputs);
    } else {
      for (auto& node : nodes_) {
        if (!node->folded) execute_node(*node, placed_outputs);
      }
    }
    std::vector<Tensor> outputs = collect_outputs();
    clear_run_state();
    return outputs;
  } catch (...) {
    clear_run_state();
    throw;
  }
}

void GraphExecutor::run_timed(const std::vector<Tensor>* placed_outputs) {
  using Clock = std::chrono::steady_clock;
  node_timings_.clear();
  const Clock::time_point run_start = Clock::now();
  for (auto& node : nodes_) {
    if (node->folded) continue;
    const Clock::time_point start = Clock::now();
    execute_node(*node, placed_outputs);
    const Clock::time_point end = Clock::now();
    node_timings_.push_back(
        {&node->node,
         std::chrono::duration_cast<std::chrono::nanoseconds>(start - run_start).count(),
         std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()});
  }
}

namespace {

bool shares_memory_with_any(const Tensor& tensor, const std::vector<const Tensor*>& inputs) {
  for (const Tensor* input : inputs) {
    if (input != nullptr && !input->empty() && input->raw_data() == tensor.raw_data()) return true;
  }
  return false;
}

}  // namespace

void GraphExecutor::execute_node(CompiledNode& compiled, const std::vector<Tensor>* placed) {
  std::vector<const Tensor*> inputs;
  inputs.reserve(compiled.input_slots.size());
  for (int slot : compiled.input_slots) inputs.push_back(slot < 0 ? nullptr : &values_[slot]);
  // Fresh output slots, so no kernel writes through a tensor another value holds.
  scratch_outputs_.assign(compiled.output_slots.size(), Tensor());
  if (placed != nullptr) {
    for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
      const int slot = compiled.output_slots[i];
      const int position = slot < 0 ? -1 : output_position_of_slot_[slot];
      if (position < 0 || (*placed)[position].empty()) continue;
      if (!shares_memory_with_any((*placed)[position], inputs)) {
        scratch_outputs_[i] = (*placed)[position];
      }
    }
  }
  SubgraphCaller subgraphs(*this, compiled);
  kernels::KernelContext context(compiled.info, std::move(inputs), scratch_outputs_, &subgraphs,
                                 options_.max_tensor_bytes);
  try {
    compiled.kernel.compute(context);
  } catch (...) {
    rethrow_naming_node(compiled);
  }
  check_outputs(compiled, scratch_outputs_);
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    if (compiled.output_slots[i] >= 0) {
      values_[compiled.output_slots[i]] = std::move(scratch_outputs_[i]);
    }
  }
  for (int slot : compiled.release_after) values_[slot] = Tensor();
}

void GraphExecutor::check_outputs(const CompiledNode& compiled,
                                  const std::vector<Tensor>& outputs) const {
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    if (compiled.output_slots[i] < 0) continue;
    const std::string& name = compiled.node.outputs[i];
    if (i >= outputs.size() || outputs[i].empty()) {
      compiled.info.fail(ErrorCode::kRuntime, "output {} '{}' was not produced", i, name);
    }
    const Tensor& output = outputs[i];
    if (static_cast<int64_t>(output.nbytes()) > options_.max_tensor_bytes) {
      compiled.info.fail(
          ErrorCode::kLimitExceeded, "output '{}' is {} ({} bytes), over the limit of {} bytes",
          name, shape_to_string(output.shape()), output.nbytes(), options_.max_tensor_bytes);
    }
  }
}

std::vector<Tensor> GraphExecutor::collect_outputs() {
  std::vector<Tensor> outputs;
  outputs.reserve(output_slots_.size());
  for (size_t i = 0; i < output_slots_.size(); ++i) {
    const Tensor& value = values_[output_slots_[i]];
    if (value.empty()) {
      fail(ErrorCode::kRuntime, "{}: graph output '{}' was not produced", options_.source,
           graph_.outputs[i].name);
    }
    // Callers may write into outputs; constants must stay untouched.
    outputs.push_back(constant_data_.count(value.raw_data()) != 0 ? value.clone() : value);
  }
  return outputs;
}

void GraphExecutor::rethrow_naming_node(const CompiledNode& compiled) const {
  const std::string node = compiled.info.describe();
  try {
    throw;
  } catch (const Error& error) {
    const std::string message = error.what();
    if (message.find(node) != std::string::npos) throw;
    throw Error(error.code(), node + ": " + message);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorCode::kRuntime, node + ": out of memory");
  } catch (const std::exception& error) {
    throw Error(ErrorCode::kRuntime, node + ": " + error.what());
  } catch (...) {
    throw Error(ErrorCode::kRuntime, node + ": unknown failure");
  }
}

}  // namespace inferlab::runtime
