// Session: load = import + operator check + input shapes + shape inference +
// executor construction (all decided once); run = validate inputs, execute,
// hand back outputs (or write them into caller-bound tensors). Streams and
// sharing between sessions are in session_streams.cc.
#include "inferlab/runtime/session.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/onnx_import.h"
#include "inferlab/runtime/compute_threads.h"
#include "inferlab/runtime/executor.h"
#include "inferlab/runtime/input_check.h"
#include "inferlab/runtime/op_support.h"
#include "inferlab/runtime/run_plan_cache.h"
#include "inferlab/runtime/session_impl.h"
#include "inferlab/runtime/shape_inference.h"
#include "inferlab/runtime/shape_specialization.h"
#include "inferlab/runtime/stream_pool.h"

namespace inferlab::runtime {

namespace {

model::ImportOptions import_options_for(const SessionOptions& options) {
  model::ImportOptions import_options;
  import_options.max_tensor_bytes = options.max_tensor_bytes;
  import_options.run_checker = options.run_checker;
  return import_options;
}

std::vector<model::ValueInfo> inferred_outputs(const model::Graph& graph,
                                               const ShapeInferenceResult& shapes) {
  std::vector<model::ValueInfo> outputs;
  for (const model::ValueInfo& declared : graph.outputs) {
    const model::ValueInfo* inferred = shapes.find_resolved(declared.name);
    model::ValueInfo info = inferred ? *inferred : declared;
    if (info.dtype == DataType::kUndefined) {
      auto it = shapes.values.find(declared.name);
      if (it != shapes.values.end()) info.dtype = it->second.dtype;
    }
    outputs.push_back(std::move(info));
  }
  return outputs;
}

// Appends the requested intermediate values to the graph's outputs, so the
// executor keeps them alive to the end like any output.
void add_extra_outputs(model::Model& model, const std::vector<std::string>& names) {
  model::Graph& graph = *model.graph;
  std::unordered_set<std::string> known;
  for (const model::ValueInfo& input : graph.inputs) known.insert(input.name);
  for (const auto& [name, tensor] : graph.initializers) known.insert(name);
  for (const model::Node& node : graph.nodes)
    for (const std::string& output : node.outputs) known.insert(output);
  for (const std::string& name : names) {
    if (known.count(name) == 0) {
      fail(ErrorCode::kInvalidArgument, "{}: extra output '{}' is not a value of the main graph",
           model.source, name);
    }
    bool already_output = false;
    for (const model::ValueInfo& output : graph.outputs) already_output |= output.name == name;
    if (already_output) continue;
    model::ValueInfo extra;
    extra.name = name;
    graph.outputs.push_back(std::move(extra));
  }
}

// Updates an entry in place after the first run, so that steady-state runs
// create no map node and no key string.
void set_bound_output(TensorMap& outputs, const std::string& name, const Tensor& value) {
  auto it = outputs.find(name);
  if (it == outputs.end()) {
    outputs.emplace(name, value);
  } else {
    it->second = value;
  }
}

void copy_tensor_into(const Tensor& from, Tensor& to) {
  if (from.dtype() == DataType::kString) {
    const auto* in = static_cast<const std::string*>(from.raw_data());
    auto* out = static_cast<std::string*>(to.raw_data());
    for (int64_t i = 0; i < from.numel(); ++i) out[i] = in[i];
  } else if (from.nbytes() > 0) {
    std::memcpy(to.raw_data(), from.raw_data(), from.nbytes());
  }
}

}  // namespace

// The run plan for these inputs' shapes: cached, or built now (shape
// inference for the new signature, memory plan, kernel contexts). Null when
// plans are off or initializers are overridden (folded values may read them).
RunPlan* Session::plan_for(const MatchedInputs& matched) {
  Impl& impl = *impl_;
  if (impl.plans->capacity() == 0 || !matched.overrides.empty()) return nullptr;
  if (RunPlan* cached = impl.plans->find(matched.positional)) return cached;
  std::vector<Shape> signature;
  for (const Tensor* input : matched.positional) signature.push_back(input->shape());
  return build_plan(std::move(signature));
}

RunPlan* Session::build_plan(std::vector<Shape> signature) {
  Impl& impl = *impl_;
  const auto start = std::chrono::steady_clock::now();
  const model::Graph& graph = *impl.model.graph;
  ShapeInferenceOptions shape_options;
  shape_options.max_tensor_bytes = impl.options.max_tensor_bytes;
  for (size_t i = 0; i < signature.size(); ++i) {
    shape_options.input_shapes[graph.inputs[i].name] = signature[i];
  }
  ShapeInferenceResult inferred;
  const bool load_shapes = shape_options.input_shapes == static_input_shapes(impl.inputs);
  if (!load_shapes) {
    inferred = infer_shapes(impl.model, shape_options, kernels::OpRegistry::reference());
  }
  std::unique_ptr<RunPlan> plan = impl.executor->build_plan(
      load_shapes ? impl.shapes : inferred, std::move(signature), MemoryPlanOptions{});
  plan->build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  impl.last_plan_build_ms = plan->build_ms;
  ++impl.plans_built;
  return impl.plans->insert(std::move(plan));
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session Session::from_model(model::Model model, const SessionOptions& options, bool optimized,
                            std::shared_ptr<SharedModel> shared) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->threads_per_run = options.threads;
  // Before optimizing: the model as imported, for the specializations (a
  // shared model lends its own).
  std::optional<model::Model> imported;
  if (shared) {
    imported = shared->imported;
  } else if (!optimized && options.opt_level >= 2 && model.graph) {
    imported = model;
    imported->graph = std::make_shared<model::Graph>(*model.graph);
  }
  impl->model = std::move(model);
  const model::Model& loaded = impl->model;
  if (!loaded.graph) fail(ErrorCode::kInvalidModel, "{}: the model has no graph", loaded.source);
  const kernels::OpRegistry& registry =
      kernels::OpRegistry::for_isa(kernels::cpu::effective_isa(options.max_isa));
  // Process-wide, first setting wins (see limit_dnnl_isa).
  kernels::dnnl_backend::limit_dnnl_isa(options.max_isa);
  check_ops_supported(loaded, registry);
  if (!optimized) add_extra_outputs(impl->model, options.extra_outputs);
  impl->inputs = apply_input_shapes(*loaded.graph, options.input_shapes, loaded.source);
  if (options.opt_level < 0 || options.opt_level > 3)
    fail(ErrorCode::kInvalidArgument, "opt_level must be 0..3, got {}", options.opt_level);
  optimizer::OptimizeOptions optimize_options;
  optimize_options.level = options.opt_level;
  optimize_options.input_shapes = static_input_shapes(impl->inputs);
  optimize_options.max_tensor_bytes = options.max_tensor_bytes;
  if (!optimized)
    impl->optimization_log = optimizer::optimize(impl->model, optimize_options, registry);
  const bool lends = !shared;  // this session makes the model others may share
  if (shared) {
    impl->optimization_log = shared->optimization_log;
  } else {
    shared = std::make_shared<SharedModel>();
    shared->model = impl->model;  // the same graph: the listener below keeps it current
    shared->optimization_log = impl->optimization_log;
    shared->caches = std::make_shared<NodeCaches>();
    shared->caches->caches.resize(loaded.graph->nodes.size());
    shared->imported = imported;
  }
  impl->shared = shared;

  ShapeInferenceOptions shape_options;
  shape_options.input_shapes = static_input_shapes(impl->inputs);
  shape_options.max_tensor_bytes = options.max_tensor_bytes;
  impl->shapes = infer_shapes(loaded, shape_options, registry);
  impl->outputs = inferred_outputs(*loaded.graph, impl->shapes);

  ExecutorOptions executor_options;
  executor_options.opset = loaded.default_opset();
  executor_options.opsets = loaded.opsets;
  executor_options.max_tensor_bytes = options.max_tensor_bytes;
  executor_options.source = loaded.source;
  executor_options.node_timing = options.node_timing;
  executor_options.node_caches = shared->caches;
  impl->executor =
      std::make_unique<GraphExecutor>(*loaded.graph, registry, executor_options, false);
  // The model's graph and the shape inference result share each constant's
  // memory with the executor: they drop a released one (or take a rebuilt
  // one) with it, so the memory is really freed.
  impl->executor->set_constant_listener(
      [state = impl.get()](const std::string& name, const Tensor& value) {
        auto initializer = state->model.graph->initializers.find(name);
        if (initializer != state->model.graph->initializers.end()) initializer->second = value;
        auto known = state->shapes.known_values.find(name);
        if (known != state->shapes.known_values.end()) known->second = value;
      });
  impl->plans = std::make_unique<RunPlanCache>(options.max_cached_plans);
  const bool dynamic =
      std::any_of(impl->inputs.begin(), impl->inputs.end(),
                  [](const model::ValueInfo& input) { return !input.is_static(); });
  if (imported && dynamic) {
    impl->specializations = std::make_unique<ShapeSpecializations>(
        std::move(*imported), options, options.max_cached_plans,
        [](const model::Model& copy, const SessionOptions& fixed) {
          return shared_or_new(copy.source, fixed, [&]() {
            model::Model edited = copy;
            edited.graph = std::make_shared<model::Graph>(*copy.graph);
            return from_model(std::move(edited), fixed);
          });
        });
  } else if (lends) {
    impl->shared->imported.reset();  // no specializations: nothing to lend
  }
  return Session(std::move(impl));
}

Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Session Session::load_one(const std::string& path, const SessionOptions& options) {
  if (!options.plan_cache_dir.empty()) return load_with_cache(path, options);
  return from_model(model::import_model_file(path, import_options_for(options)), options);
}

// A model whose inputs are all static is planned at load (unless a plan
// exists) when it goes through the plan cache, so the saved plan carries the
// prepacked weights and a cached load hands them to the kernels without a
// reorder; and in throughput mode, so every stream reads the shared packed
// weights from the start.
void Session::plan_static_inputs() {
  Impl& impl = *impl_;
  if (impl.plans->capacity() == 0 || impl.plans->size() > 0 || impl.specializations) return;
  std::vector<Shape> signature;
  for (const model::ValueInfo& input : impl.inputs) {
    if (!input.is_static()) return;
    signature.push_back(input.static_shape());
  }
  const ComputeThreads threads(impl.threads_per_run);  // oneDNN fits plans to the team
  build_plan(std::move(signature));
}

Session Session::load_with_cache(const std::string& path, const SessionOptions& options) {
  const PlanCache cache(options.plan_cache_dir);
  // Before the key: the oneDNN ISA the process runs with is part of it.
  kernels::dnnl_backend::limit_dnnl_isa(options.max_isa);
  PlanKeyInputs key_inputs{path, options.opt_level, options.input_shapes, options.extra_outputs};
  key_inputs.kernels = fmt::format(
      "{}, oneDNN {}", kernels::cpu::isa_name(kernels::cpu::effective_isa(options.max_isa)),
      kernels::dnnl_backend::dnnl_isa_name());
  const nlohmann::json key = cache.key(key_inputs);
  PlanCacheStatus status;
  model::Model cached;
  PackedNodes packed;
  if (cache.load(key, cached, packed, status)) {
    Session session = from_model(std::move(cached), options, true);
    for (const auto& [node, copies] : packed) {
      session.impl_->executor->restore_node_cache(
          node, std::make_shared<kernels::dnnl_backend::PackedWeightsCache>(copies));
    }
    session.plan_static_inputs();
    session.impl_->plan_cache = status;
    return session;
  }
  Session session =
      from_model(model::import_model_file(path, import_options_for(options)), options);
  session.plan_static_inputs();
  cache.save(key, session.impl_->model, session.impl_->executor->packed_copies(), status);
  session.impl_->plan_cache = status;
  return session;
}

Session Session::load_bytes(const void* data, size_t size, const SessionOptions& options) {
  return with_streams(options, [&](const SessionOptions& o) {
    return from_model(model::import_model_bytes(data, size, import_options_for(o)), o);
  });
}

const model::Model& Session::model() const {
  if (const Session* active = active_specialization()) return active->model();
  return impl_->model;
}
model::Model Session::model_with_weights() const {
  if (const Session* active = active_specialization()) return active->model_with_weights();
  model::Model copy = impl_->model;
  copy.graph = std::make_shared<model::Graph>(*impl_->model.graph);
  for (auto& [name, weights] : impl_->executor->rebuilt_constants())
    copy.graph->initializers[name] = std::move(weights);
  return copy;
}
const std::vector<model::ValueInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<model::ValueInfo>& Session::outputs() const { return impl_->outputs; }
const SessionOptions& Session::options() const { return impl_->options; }
const optimizer::OptimizationLog& Session::optimization_log() const {
  if (const Session* active = active_specialization()) return active->optimization_log();
  return impl_->optimization_log;
}
const PlanCacheStatus& Session::plan_cache_status() const { return impl_->plan_cache; }

const std::unordered_map<std::string, model::ValueInfo>& Session::value_infos() const {
  if (const Session* active = active_specialization()) return active->value_infos();
  return impl_->shapes.values;
}

TensorMap Session::run_on_this_stream(const TensorMap& inputs) {
  const ComputeThreads threads(impl_->threads_per_run, impl_->options.flush_denormals);
  const model::Graph& graph = *impl_->model.graph;
  const MatchedInputs matched = match_inputs(impl_->inputs, graph.overridable_initializers, inputs);
  if (Session* specialized = specialization_for(matched)) return specialized->run(inputs);
  RunPlan* plan = plan_for(matched);
  impl_->last_plan = plan;
  ++impl_->executions;
  std::vector<Tensor> results =
      plan != nullptr ? impl_->executor->run_planned(*plan, matched.positional)
                      : impl_->executor->run(matched.positional, {}, matched.overrides);
  TensorMap outputs;
  for (size_t i = 0; i < results.size(); ++i)
    outputs[graph.outputs[i].name] = std::move(results[i]);
  return outputs;
}

void Session::bind(const TensorMap& inputs, const TensorMap& outputs) {
  if (impl_->pool) {
    fail(ErrorCode::kInvalidArgument,
         "bind() is for latency mode; in throughput mode call run(inputs) or run_many()");
  }
  const model::Graph& graph = *impl_->model.graph;
  impl_->bound = false;
  impl_->bound_inputs = inputs;
  impl_->bound_matched =
      match_inputs(impl_->inputs, graph.overridable_initializers, impl_->bound_inputs);
  impl_->bound_specialized = false;
  if (Session* specialized = specialization_for(impl_->bound_matched)) {
    specialized->bind(impl_->bound_inputs, outputs);
    impl_->bound_requested_outputs = outputs;
    impl_->bound_specialization_id = impl_->specializations->last_id();
    impl_->bound_specialized = true;
    impl_->bound = true;
    return;
  }
  impl_->placed_outputs.assign(graph.outputs.size(), Tensor());
  for (const auto& [name, tensor] : outputs) {
    size_t position = 0;
    while (position < graph.outputs.size() && graph.outputs[position].name != name) ++position;
    if (position == graph.outputs.size()) {
      fail(ErrorCode::kInvalidArgument, "bind: the model has no output named '{}'", name);
    }
    const model::ValueInfo& expected = impl_->outputs[position];
    if (tensor.empty())
      fail(ErrorCode::kInvalidArgument, "bind: output '{}' is an empty tensor", name);
    if (expected.dtype != DataType::kUndefined && tensor.dtype() != expected.dtype) {
      fail(ErrorCode::kInvalidArgument, "bind: output '{}' is {}, but the model produces {}", name,
           dtype_name(tensor.dtype()), expected.to_string());
    }
    if (expected.is_static() && tensor.shape() != expected.static_shape()) {
      fail(ErrorCode::kInvalidArgument, "bind: output '{}' has shape {}, but the model produces {}",
           name, shape_to_string(tensor.shape()), expected.to_string());
    }
    impl_->placed_outputs[position] = tensor;
  }
  impl_->bound_outputs.clear();
  // The plan for these shapes is built (or found) now, so that run() only
  // executes: the first run of a binding costs what the others do.
  const ComputeThreads threads(impl_->threads_per_run);  // oneDNN fits plans to the team
  impl_->last_plan = plan_for(impl_->bound_matched);
  impl_->bound = true;
}

void Session::run() {
  if (!impl_->bound) fail(ErrorCode::kInvalidArgument, "run(): bind() inputs first");
  if (impl_->bound_specialized) return run_bound_specialization();
  const ComputeThreads threads(impl_->threads_per_run, impl_->options.flush_denormals);
  const model::Graph& graph = *impl_->model.graph;
  const MatchedInputs& matched = impl_->bound_matched;
  RunPlan* plan = plan_for(matched);
  impl_->last_plan = plan;
  ++impl_->executions;
  std::vector<Tensor> unplanned;
  const std::vector<Tensor>& results =
      plan != nullptr
          ? impl_->executor->run_planned(*plan, matched.positional, &impl_->placed_outputs)
          : (unplanned = impl_->executor->run(matched.positional, {}, matched.overrides,
                                              &impl_->placed_outputs));
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string& name = graph.outputs[i].name;
    Tensor& placed = impl_->placed_outputs[i];
    if (placed.empty()) {
      set_bound_output(impl_->bound_outputs, name, results[i]);
      continue;
    }
    if (results[i].raw_data() != placed.raw_data()) {
      if (results[i].dtype() != placed.dtype() || results[i].shape() != placed.shape()) {
        fail(ErrorCode::kInvalidArgument,
             "output '{}': the bound tensor is {} {}, but the run produced {} {}", name,
             dtype_name(placed.dtype()), shape_to_string(placed.shape()),
             dtype_name(results[i].dtype()), shape_to_string(results[i].shape()));
      }
      copy_tensor_into(results[i], placed);
    }
    set_bound_output(impl_->bound_outputs, name, placed);
  }
}

const TensorMap& Session::bound_outputs() const {
  if (impl_->bound_specialized) {
    // Dropped for other shapes since the last bound run: nothing to show.
    const Session* bound = impl_->specializations->find(impl_->bound_specialization_id);
    if (bound != nullptr) return bound->bound_outputs();
  }
  return impl_->bound_outputs;
}

// The bound inputs' specialization, found again (it may have been dropped
// for other shapes since, then it is rebuilt and bound anew).
void Session::run_bound_specialization() {
  Session* specialized = specialization_for(impl_->bound_matched);
  if (impl_->specializations->last_id() != impl_->bound_specialization_id) {
    specialized->bind(impl_->bound_inputs, impl_->bound_requested_outputs);
    impl_->bound_specialization_id = impl_->specializations->last_id();
  }
  specialized->run();
}

Session* Session::specialization_for(const MatchedInputs& matched) {
  if (!impl_->specializations || !matched.overrides.empty()) return nullptr;
  const ComputeThreads threads(impl_->threads_per_run);  // oneDNN fits plans to the team
  return &impl_->specializations->for_inputs(matched.positional, impl_->inputs);
}

// What ran last: the specialized session when there is one.
const Session* Session::active_specialization() const {
  return impl_->specializations ? impl_->specializations->last() : nullptr;
}

}  // namespace inferlab::runtime

namespace inferlab::runtime {

double Session::last_plan_build_ms() const {
  if (const Session* active = active_specialization()) return active->last_plan_build_ms();
  return impl_->last_plan_build_ms;
}
int64_t Session::plans_built() const {
  int64_t built = impl_->plans_built;
  if (impl_->specializations) {
    built += impl_->specializations->dropped_plans_built();
    impl_->specializations->for_each([&](const Session& s) { built += s.plans_built(); });
  }
  return built;
}
size_t Session::cached_plans() const {
  size_t cached = impl_->plans->size();
  if (impl_->specializations) {
    impl_->specializations->for_each([&](const Session& s) { cached += s.cached_plans(); });
  }
  return cached;
}
int64_t Session::executions() const {
  int64_t executions = impl_->executions;
  for (const Session& stream : impl_->other_streams) executions += stream.executions();
  if (impl_->specializations) {
    impl_->specializations->for_each([&](const Session& s) { executions += s.executions(); });
  }
  return executions;
}

std::map<std::string, int64_t> Session::kernel_libraries() const {
  if (const Session* active = active_specialization()) return active->kernel_libraries();
  return impl_->executor->kernel_libraries();
}
WeightMemory Session::weight_memory() const {
  if (const Session* active = active_specialization()) return active->weight_memory();
  return impl_->executor->weight_memory();
}
const MemoryPlan* Session::last_memory_plan() const {
  if (const Session* active = active_specialization()) return active->last_memory_plan();
  return impl_->last_plan != nullptr ? &impl_->last_plan->memory : nullptr;
}
size_t Session::last_scratch_bytes() const {
  if (const Session* active = active_specialization()) return active->last_scratch_bytes();
  return impl_->last_plan != nullptr ? impl_->last_plan->scratch.capacity() : 0;
}
size_t Session::shape_specializations() const {
  return impl_->specializations ? impl_->specializations->size() : 0;
}

std::vector<NodeTime> Session::node_timings() const {
  if (const Session* active = active_specialization()) return active->node_timings();
  std::vector<NodeTime> times;
  for (const NodeTiming& timing : impl_->executor->node_timings()) {
    times.push_back({timing.node->name, timing.node->op_type, timing.start_ns, timing.duration_ns});
  }
  return times;
}

}  // namespace inferlab::runtime
