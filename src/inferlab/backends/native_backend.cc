// The native backend. Session::bind keeps the inputs as they are (InferLab
// tensors are the engine's own type), so bind and fetch cost nothing beyond
// validation and execute() is exactly one Session::run(). The backend object
// keeps the models it opened (weakly), so a second instance of a file shares
// the first one's graph, constants and packed weights.
#include "inferlab/backends/native_backend.h"
#include "inferlab/core/stopwatch.h"

#include <chrono>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/runtime/compute_threads.h"
#include "inferlab/runtime/session.h"

namespace inferlab::backends {

namespace {

constexpr const char* kName = "native";

// The native backend's settings: "denormals" = "flush" (the default:
// SessionOptions::flush_denormals) or "keep"; "streams" = N or "auto"
// (throughput mode: N requests compute at once, each on threads/N threads;
// "auto" one per thread), absent or 0 for latency mode.
struct NativeSettings {
  bool flush_denormals = true;
  bool throughput = false;
  int streams = 0;  // throughput mode: 0 one per thread
};

int parse_streams(const std::string& value) {
  if (value == "auto") return 0;
  size_t used = 0;
  int streams = -1;
  try {
    streams = std::stoi(value, &used);
  } catch (const std::exception&) {
  }
  if (used != value.size() || streams < 0) {
    fail(ErrorCode::kInvalidArgument,
         "{}: setting streams is '{}'; use a count of requests to compute at once, or auto", kName,
         value);
  }
  return streams;
}

NativeSettings parse_settings(const BackendOptions& options) {
  NativeSettings settings;
  for (const auto& [key, value] : options.settings) {
    if (key == "denormals") {
      if (value != "flush" && value != "keep") {
        fail(ErrorCode::kInvalidArgument, "{}: setting denormals is '{}'; use flush or keep", kName,
             value);
      }
      settings.flush_denormals = value == "flush";
    } else if (key == "streams") {
      settings.streams = parse_streams(value);
      settings.throughput = value == "auto" || settings.streams > 0;
    } else {
      fail(ErrorCode::kInvalidArgument,
           "{}: unknown setting '{}' (the native backend has denormals=flush|keep and "
           "streams=N|auto)",
           kName, key);
    }
  }
  return settings;
}

void check_settings(const BackendOptions& options) {
  parse_settings(options);
  if (options.device != "cpu") {
    fail(ErrorCode::kUnsupported, "{}: device '{}' is not supported (only cpu)", kName,
         options.device);
  }
}

nlohmann::json plan_cache_json(const runtime::PlanCacheStatus& status) {
  return {{"outcome", status.outcome},
          {"detail", status.detail},
          {"path", status.path},
          {"lookup_ms", status.lookup_ms},
          {"save_ms", status.save_ms}};
}

// Where the weights are: resident originals, released ones (their readers
// hold packed copies), and the copies, with how many this session reordered
// itself (none on a load from the plan cache).
nlohmann::json weights_json(const runtime::WeightMemory& memory) {
  return {{"resident_bytes", memory.resident_bytes},
          {"released_bytes", memory.released_bytes},
          {"packed_bytes", memory.packed_bytes},
          {"packed_copies", memory.packed_copies},
          {"packed_here", memory.packed_here}};
}

class NativeModel final : public Model {
 public:
  NativeModel(const ModelSource& source, const BackendOptions& options,
              std::shared_ptr<runtime::SharedModels> shared_models)
      : options_(options),
        settings_(parse_settings(options)),
        session_(open_session(source, options, std::move(shared_models))) {}

  const std::vector<model::ValueInfo>& inputs() const override { return session_.inputs(); }
  const std::vector<model::ValueInfo>& outputs() const override { return session_.outputs(); }
  Capabilities capabilities() const override { return native_capabilities(settings_); }
  LoadTimings load_timings() const override { return {0.0, load_ms_}; }

  nlohmann::json configuration() const override {
    const int threads = runtime::resolve_threads(options_.threads);
    return {
        {"threads_requested", options_.threads},
        // The OpenMP team oneDNN and InferLab's kernels share, per run
        // (all streams together in throughput mode).
        {"threads_used", threads},
        {"threads", runtime::threads_label(options_.threads, threads)},
        {"mode", settings_.throughput ? "throughput" : "latency"},
        {"streams", session_.streams()},
        {"threads_per_stream", session_.threads_per_stream()},
        {"opt_level", options_.opt_level},
        // The kernels' instruction set: the best the CPU has, at most max_isa.
        {"max_isa", options_.max_isa},
        {"isa", kernels::cpu::isa_name(
                    kernels::cpu::effective_isa(kernels::cpu::parse_isa(options_.max_isa)))},
        // Nodes of the optimized graph by the library computing them.
        {"kernels", session_.kernel_libraries()},
        {"onednn",
         {{"version", kernels::dnnl_backend::onednn_version()},
          {"isa", kernels::dnnl_backend::dnnl_isa_name()}}},
        {"node_timing", options_.node_timing},
        // Denormal floats flushed to zero while computing (or kept).
        {"denormals", settings_.flush_denormals ? "flush" : "keep"},
        {"extra_outputs", options_.extra_outputs},
        {"optimization",
         {{"nodes_before", session_.optimization_log().nodes_before},
          {"nodes_after", session_.optimization_log().nodes_after},
          {"optimize_ms", session_.optimization_log().milliseconds}}},
        {"plan_cache", plan_cache_json(session_.plan_cache_status())},
        // Run plans per input-shape signature: what a new shape costs.
        {"run_plans",
         {{"built", session_.plans_built()},
          {"cached", session_.cached_plans()},
          {"last_build_ms", session_.last_plan_build_ms()},
          // The last run's activations arena and kernels' scratch (each
          // instance has its own).
          {"arena_bytes",
           session_.last_memory_plan() != nullptr ? session_.last_memory_plan()->arena_bytes : 0},
          {"scratch_bytes", session_.last_scratch_bytes()}}},
        {"weights", weights_json(session_.weight_memory())},
        {"warnings", session_.model().warnings}};
  }

  // Latency mode binds the inputs, and outputs of their own where the model
  // fixes the output shapes (like ONNX Runtime's preallocated IoBinding
  // outputs), so runs write into them instead of allocating; other outputs
  // are placed from the second run of a binding on, once their shapes are
  // known. Throughput mode keeps the inputs for execute()'s run(inputs).
  // convert_in_ns: checking the inputs (the engine takes InferLab tensors as
  // they are). Building a new shape's run plan here is reported apart
  // (configuration()'s run_plans.last_build_ms), as ONNX Runtime's own
  // preparation is.
  void bind(const TensorMap& inputs) override {
    const auto start = std::chrono::steady_clock::now();
    check_inputs(kName, session_.inputs(), inputs);
    const int64_t convert_in_ns = nanoseconds_since(start);
    bound_inputs_ = inputs;
    place_pending_ = false;
    if (!settings_.throughput) {
      const bool static_outputs = placed_for(session_.outputs());
      session_.bind(bound_inputs_, static_outputs ? placed_ : TensorMap{});
      outputs_placed_ = static_outputs;
    }
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_ = {};
    timings_.convert_in_ns = convert_in_ns;
  }

  int64_t execute() override {
    if (place_pending_) {
      session_.bind(bound_inputs_, placed_);
      place_pending_ = false;
      outputs_placed_ = true;
    }
    const int64_t executions_before = session_.executions();
    const auto start = std::chrono::steady_clock::now();
    if (settings_.throughput) {
      unbound_outputs_ = session_.run(bound_inputs_);
    } else {
      session_.run();
    }
    const int64_t execute_ns = nanoseconds_since(start);
    if (!settings_.throughput && !outputs_placed_) place_pending_ = placed_like_last_run();
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_.execute_ns = execute_ns;
    timings_.engine_runs = session_.executions() - executions_before;
    return execute_ns;
  }

  TensorMap fetch() override {
    const auto start = std::chrono::steady_clock::now();
    // Copies: the next run overwrites the placed buffers.
    TensorMap outputs;
    const TensorMap& last = settings_.throughput ? unbound_outputs_ : session_.bound_outputs();
    for (const auto& [name, tensor] : last) outputs.emplace(name, tensor.clone());
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_.convert_out_ns = nanoseconds_since(start);
    return outputs;
  }

  // One run into fresh outputs; from several threads at once in throughput
  // mode (each call computes on a free stream).
  TensorMap run(const TensorMap& inputs) override {
    const auto start = std::chrono::steady_clock::now();
    check_inputs(kName, session_.inputs(), inputs);
    const int64_t checked_ns = nanoseconds_since(start);
    const int64_t executions_before = session_.executions();
    TensorMap outputs = session_.run(inputs);
    RunTimings timings;
    timings.convert_in_ns = checked_ns;
    timings.execute_ns = nanoseconds_since(start) - checked_ns;
    // Other threads' runs may land in between in throughput mode.
    timings.engine_runs = session_.executions() - executions_before;
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_ = timings;
    return outputs;
  }

  RunTimings last_timings() const override {
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    return timings_;
  }

  std::vector<NodeEvent> node_events() const override {
    std::vector<NodeEvent> events;
    for (const runtime::NodeTime& time : session_.node_timings())
      events.push_back({time.node_name, time.op_type, time.start_ns, time.duration_ns, 0});
    return events;
  }

  static Capabilities native_capabilities(const NativeSettings& settings) {
    Capabilities capabilities;
    capabilities.concurrent_run = settings.throughput;
    capabilities.extra_outputs = true;
    capabilities.node_timing = true;
    capabilities.plan_cache = true;
    return capabilities;
  }

 private:
  runtime::Session open_session(const ModelSource& source, const BackendOptions& options,
                                std::shared_ptr<runtime::SharedModels> shared_models) {
    refuse_unsupported_options(kName, options, native_capabilities(settings_));
    check_settings(options);
    const auto start = std::chrono::steady_clock::now();
    runtime::SessionOptions session_options;
    session_options.threads = options.threads;
    session_options.input_shapes = options.input_shapes;
    session_options.extra_outputs = options.extra_outputs;
    session_options.node_timing = options.node_timing;
    session_options.opt_level = options.opt_level;
    session_options.max_isa = kernels::cpu::parse_isa(options.max_isa);
    session_options.plan_cache_dir = options.plan_cache_dir;
    session_options.flush_denormals = settings_.flush_denormals;
    session_options.shared_models = std::move(shared_models);
    if (settings_.throughput) {
      session_options.mode = runtime::ExecutionMode::kThroughput;
      session_options.streams = settings_.streams;
    }
    runtime::Session session = runtime::Session::load(source.require_onnx(kName), session_options);
    load_ms_ = static_cast<double>(nanoseconds_since(start)) / 1e6;
    return session;
  }

  // placed_ made to hold outputs of these types and shapes (kept when they
  // already do); false when one is not a fixed-shape numeric tensor.
  bool placed_for(const std::vector<model::ValueInfo>& outputs) {
    for (const model::ValueInfo& output : outputs) {
      if (!output.is_static() || output.dtype == DataType::kString ||
          output.dtype == DataType::kUndefined) {
        return false;
      }
    }
    for (const model::ValueInfo& output : outputs)
      place(output.name, output.dtype, output.static_shape());
    return true;
  }

  // After an unplaced run: placed_ made like its outputs, for the next run.
  bool placed_like_last_run() {
    const TensorMap& last = session_.bound_outputs();
    for (const auto& [name, tensor] : last) {
      if (tensor.dtype() == DataType::kString || tensor.empty()) return false;
    }
    for (const auto& [name, tensor] : last) place(name, tensor.dtype(), tensor.shape());
    return true;
  }

  void place(const std::string& name, DataType dtype, const Shape& shape) {
    auto it = placed_.find(name);
    if (it != placed_.end() && it->second.dtype() == dtype && it->second.shape() == shape) return;
    placed_.insert_or_assign(name, Tensor(dtype, shape));
  }

  BackendOptions options_;
  NativeSettings settings_;
  double load_ms_ = 0.0;
  runtime::Session session_;
  TensorMap bound_inputs_;
  TensorMap placed_;  // latency mode: the bound outputs
  bool outputs_placed_ = false;
  bool place_pending_ = false;  // placed_ set up by the last run, to bind before the next
  TensorMap unbound_outputs_;   // throughput mode: the last execute()'s outputs
  mutable std::mutex timings_mutex_;
  RunTimings timings_;
};

class NativeBackend final : public Backend {
 public:
  std::string name() const override { return kName; }

  BackendInfo info() const override {
    BackendInfo info;
    info.name = kName;
    info.available = true;
    info.version = INFERLAB_VERSION_STRING;
    info.devices = {"cpu"};
    // The kernel libraries models may run on; a model's configuration
    // counts its nodes per library.
    info.configuration = {
        {"kernels",
         {{"oneDNN", fmt::format("{} ({})", kernels::dnnl_backend::onednn_version(),
                                 kernels::dnnl_backend::dnnl_isa_name())},
          {"InferLab",
           kernels::cpu::isa_name(kernels::cpu::effective_isa(kernels::cpu::Isa::kAvx512))},
          {"reference", "portable C++"}}},
        {"cores", std::thread::hardware_concurrency()}};
    return info;
  }

  // Every model opened here shares graphs, constants and packed weights
  // with the live ones of the same file (runtime/shared_model.h).
  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override {
    return std::make_unique<NativeModel>(source, options, shared_models_);
  }

 private:
  std::shared_ptr<runtime::SharedModels> shared_models_ = std::make_shared<runtime::SharedModels>();
};

}  // namespace

std::unique_ptr<Backend> make_native_backend() { return std::make_unique<NativeBackend>(); }

}  // namespace inferlab::backends
