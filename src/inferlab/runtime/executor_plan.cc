// Planned runs of the main graph (see run_plan.h): building a RunPlan for
// one input-shape signature, and running with it without allocating.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "inferlab/runtime/executor.h"
#include "inferlab/runtime/executor_internal.h"

namespace inferlab::runtime {

void RunPlan::allocate_arena(int64_t bytes) {
  constexpr size_t kAlignment = 64;
  storage_ = std::make_unique<std::byte[]>(static_cast<size_t>(bytes) + kAlignment);
  const auto address = reinterpret_cast<uintptr_t>(storage_.get());
  arena_ = storage_.get() + (kAlignment - address % kAlignment) % kAlignment;
  arena_bytes_ = bytes;
}

bool RunPlan::matches(const std::vector<const Tensor*>& inputs) const {
  if (inputs.size() != input_shapes.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr || inputs[i]->shape() != input_shapes[i]) return false;
  }
  return true;
}

namespace {

// True when every output the node defines is known before running.
bool outputs_known(const model::Node& node, const ShapeInferenceResult& shapes) {
  bool any = false;
  for (const std::string& output : node.outputs) {
    if (output.empty()) continue;
    if (shapes.known_values.count(output) == 0) return false;
    any = true;
  }
  return any;
}

}  // namespace

std::unique_ptr<RunPlan> GraphExecutor::build_plan(const ShapeInferenceResult& shapes,
                                                   std::vector<Shape> input_shapes,
                                                   const MemoryPlanOptions& memory_options) {
  if (is_subgraph_) fail(ErrorCode::kRuntime, "{}: subgraphs are not planned", options_.source);
  // Preparing fills and reads the node caches other executors may share.
  const std::lock_guard<std::mutex> lock(node_caches_->mutex);
  const int64_t packed_before = caches_packed_here();
  const auto start = std::chrono::steady_clock::now();
  auto plan = std::make_unique<RunPlan>();
  plan->input_shapes = std::move(input_shapes);
  plan->memory = plan_memory(graph_, shapes, memory_options);
  plan->allocate_arena(plan->memory.arena_bytes);
  plan->nodes = std::vector<PlannedNode>(nodes_.size());
  size_t expected_scratch = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    expected_scratch =
        std::max(expected_scratch, plan_node(*nodes_[i], plan->nodes[i], *plan, shapes));
  }
  // The first run would otherwise fault the scratch in as it grows.
  plan->scratch.prefault(expected_scratch);
  plan->results.resize(output_slots_.size());
  packed_here_ += caches_packed_here() - packed_before;
  plan->build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

size_t GraphExecutor::plan_node(CompiledNode& compiled, PlannedNode& planned, RunPlan& plan,
                                const ShapeInferenceResult& shapes) {
  if (compiled.folded) return 0;
  if (compiled.subgraphs.empty() && outputs_known(compiled.node, shapes)) {
    for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
      if (compiled.output_slots[i] < 0) continue;
      const Tensor& value = shapes.known_values.at(compiled.node.outputs[i]);
      plan.known.emplace_back(compiled.output_slots[i], value);
      plan.known_data.insert(value.raw_data());
    }
    return 0;
  }
  planned.skip = false;
  for (int slot : compiled.input_slots)
    planned.inputs.push_back(slot < 0 ? nullptr : &values_[slot]);
  planned.placed.resize(compiled.output_slots.size());
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    if (compiled.output_slots[i] < 0) continue;
    const std::string& name = compiled.node.outputs[i];
    const TensorPlacement* placement = plan.memory.find(name);
    const model::ValueInfo* info = shapes.find_resolved(name);
    if (placement == nullptr || info == nullptr) continue;
    planned.placed[i] =
        Tensor::borrow(info->dtype, info->static_shape(), plan.arena() + placement->offset);
  }
  planned.outputs = planned.placed;
  planned.subgraphs = std::make_unique<SubgraphCaller>(*this, compiled);
  planned.context =
      std::make_unique<kernels::KernelContext>(compiled.info, planned.inputs, planned.outputs,
                                               planned.subgraphs.get(), options_.max_tensor_bytes);
  planned.context->set_scratch(&plan.scratch);
  return compiled.kernel.prepare ? prepare_node(compiled, planned, shapes) : 0;
}

// The kernel's prepare step, with the plan's types and shapes and the
// values of constant inputs.
size_t GraphExecutor::prepare_node(CompiledNode& compiled, PlannedNode& planned,
                                   const ShapeInferenceResult& shapes) {
  auto facts_of = [&](const std::string& name, int slot) {
    kernels::ValueFacts facts;
    if (slot >= 0 && is_constant_[slot] && !values_[slot].empty()) {
      facts.value = &values_[slot];
      facts.dtype = facts.value->dtype();
      facts.shape = facts.value->shape();
      return facts;
    }
    const model::ValueInfo* info = name.empty() ? nullptr : shapes.find_resolved(name);
    if (info == nullptr || !info->is_static()) return facts;
    facts.dtype = info->dtype;
    facts.shape = info->static_shape();
    return facts;
  };
  std::vector<kernels::ValueFacts> inputs;
  for (size_t i = 0; i < compiled.input_slots.size(); ++i) {
    inputs.push_back(facts_of(compiled.node.inputs[i], compiled.input_slots[i]));
  }
  std::vector<kernels::ValueFacts> outputs;
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    outputs.push_back(facts_of(compiled.node.outputs[i], -1));
  }
  size_t expected_scratch = 0;
  try {
    kernels::PrepareContext context(compiled.info, std::move(inputs), std::move(outputs),
                                    compiled.node_cache);
    planned.state = compiled.kernel.prepare(context);
    settle_constants(compiled, context, planned.state != nullptr);
    if (planned.state) expected_scratch = context.expected_scratch();
  } catch (...) {
    rethrow_naming_node(compiled);
  }
  planned.context->set_state(planned.state.get());
  return expected_scratch;
}

const std::vector<Tensor>& GraphExecutor::run_planned(RunPlan& plan,
                                                      const std::vector<const Tensor*>& inputs,
                                                      const std::vector<Tensor>* placed_outputs) {
  if (!plan.matches(inputs) || !outer_slots_.empty()) {
    fail(ErrorCode::kRuntime, "{}: the run plan does not match the inputs", options_.source);
  }
  try {
    for (size_t i = 0; i < inputs.size(); ++i) values_[input_slots_[i]] = *inputs[i];
    for (const auto& [slot, value] : plan.known) values_[slot] = value;
    if (options_.node_timing) {
      node_timings_.clear();
      run_start_ = std::chrono::steady_clock::now();
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!plan.nodes[i].skip) execute_planned(*nodes_[i], plan.nodes[i], plan, placed_outputs);
    }
    for (size_t i = 0; i < output_slots_.size(); ++i) {
      const Tensor& value = values_[output_slots_[i]];
      if (value.empty()) {
        fail(ErrorCode::kRuntime, "{}: graph output '{}' was not produced", options_.source,
             graph_.outputs[i].name);
      }
      // Outputs outlive the run: never hand out constants or arena memory.
      const bool shared = constant_data_.count(value.raw_data()) != 0 ||
                          plan.known_data.count(value.raw_data()) != 0 ||
                          (!value.owns_memory() && plan.in_arena(value.raw_data()));
      plan.results[i] = shared ? value.clone() : value;
    }
    clear_values();
    return plan.results;
  } catch (...) {
    clear_values();
    throw;
  }
}

void GraphExecutor::clear_values() {
  for (size_t slot = 0; slot < values_.size(); ++slot) {
    if (!is_constant_[slot]) values_[slot] = Tensor();
  }
}

void GraphExecutor::execute_planned(CompiledNode& compiled, PlannedNode& planned, RunPlan& plan,
                                    const std::vector<Tensor>* placed) {
  for (size_t i = 0; i < planned.outputs.size(); ++i) {
    planned.outputs[i] = planned.placed[i];
    const int slot = compiled.output_slots[i];
    const int position = slot < 0 ? -1 : output_position_of_slot_[slot];
    if (placed == nullptr || position < 0 || (*placed)[position].empty()) continue;
    bool shares_input = false;
    for (const Tensor* input : planned.inputs) {
      shares_input |= input != nullptr && !input->empty() &&
                      input->raw_data() == (*placed)[position].raw_data();
    }
    if (!shares_input) planned.outputs[i] = (*placed)[position];
  }
  compute_planned(compiled, *planned.context);
  check_outputs(compiled, planned.outputs);
  for (size_t i = 0; i < compiled.output_slots.size(); ++i) {
    const int slot = compiled.output_slots[i];
    if (slot >= 0) values_[slot] = settle_output(planned, i, std::move(planned.outputs[i]), plan);
  }
  for (int slot : compiled.release_after) values_[slot] = Tensor();
}

void GraphExecutor::compute_planned(CompiledNode& compiled, kernels::KernelContext& context) {
  using Clock = std::chrono::steady_clock;
  try {
    if (!options_.node_timing) {
      compiled.kernel.compute(context);
      return;
    }
    const Clock::time_point start = Clock::now();
    compiled.kernel.compute(context);
    const Clock::time_point end = Clock::now();
    node_timings_.push_back(
        {&compiled.node,
         std::chrono::duration_cast<std::chrono::nanoseconds>(start - run_start_).count(),
         std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()});
  } catch (...) {
    rethrow_naming_node(compiled);
  }
}

// A kernel may hand back a view of an input (Reshape) instead of its
// pre-placed output. A view of arena memory is only safe where the planner
// made that output share its input's buffer; otherwise it is copied to the
// output's own placement (or, unplanned, to fresh memory).
Tensor GraphExecutor::settle_output(const PlannedNode& planned, size_t index, Tensor output,
                                    const RunPlan& plan) const {
  const Tensor& placement = planned.placed[index];
  if (output.owns_memory() || !plan.in_arena(output.raw_data())) return output;
  if (!placement.empty() && output.raw_data() == placement.raw_data()) return output;
  if (!placement.empty() && placement.dtype() == output.dtype() &&
      placement.shape() == output.shape()) {
    Tensor target = placement;
    std::memmove(target.raw_data(), output.raw_data(), output.nbytes());
    return target;
  }
  return output.clone();
}

}  // namespace inferlab::runtime
