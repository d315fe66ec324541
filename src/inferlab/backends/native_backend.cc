// The native backend. Session::bind keeps the inputs as they are (InferLab
// tensors are the engine's own type), so bind and fetch cost nothing beyond
// validation and execute() is exactly Session::run().
#include "inferlab/backends/native_backend.h"
#include "inferlab/core/stopwatch.h"

#include <chrono>
#include <thread>

#include "inferlab/runtime/compute_threads.h"
#include "inferlab/runtime/session.h"

namespace inferlab::backends {

namespace {

constexpr const char* kName = "native";

// The native backend's one setting, "denormals": "flush" (the default:
// SessionOptions::flush_denormals) or "keep".
bool flush_denormals(const BackendOptions& options) {
  for (const auto& [key, value] : options.settings) {
    if (key != "denormals") {
      fail(ErrorCode::kInvalidArgument,
           "{}: unknown setting '{}' (the native backend has one: denormals=flush|keep)", kName,
           key);
    }
    if (value != "flush" && value != "keep") {
      fail(ErrorCode::kInvalidArgument, "{}: setting denormals is '{}'; use flush or keep", kName,
           value);
    }
  }
  const auto it = options.settings.find("denormals");
  return it == options.settings.end() || it->second == "flush";
}

void check_settings(const BackendOptions& options) {
  flush_denormals(options);
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
  NativeModel(const ModelSource& source, const BackendOptions& options)
      : options_(options), session_(open_session(source, options)) {}

  const std::vector<model::ValueInfo>& inputs() const override { return session_.inputs(); }
  const std::vector<model::ValueInfo>& outputs() const override { return session_.outputs(); }
  Capabilities capabilities() const override { return native_capabilities(); }
  LoadTimings load_timings() const override { return {0.0, load_ms_}; }

  nlohmann::json configuration() const override {
    return {{"threads_requested", options_.threads},
            // The OpenMP team oneDNN and InferLab's kernels share, per run.
            {"threads_used", runtime::resolve_threads(options_.threads)},
            {"opt_level", options_.opt_level},
            // The kernels' instruction set: the best the CPU has, at most max_isa.
            {"max_isa", options_.max_isa},
            {"isa", kernels::cpu::isa_name(
                        kernels::cpu::effective_isa(kernels::cpu::parse_isa(options_.max_isa)))},
            {"node_timing", options_.node_timing},
            // Denormal floats flushed to zero while computing (or kept).
            {"denormals", flush_denormals(options_) ? "flush" : "keep"},
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
              {"last_build_ms", session_.last_plan_build_ms()}}},
            {"weights", weights_json(session_.weight_memory())},
            {"warnings", session_.model().warnings}};
  }

  void bind(const TensorMap& inputs) override {
    const auto start = std::chrono::steady_clock::now();
    check_inputs(kName, session_.inputs(), inputs);
    session_.bind(inputs);
    bound_inputs_ = inputs;
    outputs_placed_ = false;
    timings_ = {};
    timings_.convert_in_ns = nanoseconds_since(start);
  }

  int64_t execute() override {
    const auto start = std::chrono::steady_clock::now();
    session_.run();
    timings_.execute_ns = nanoseconds_since(start);
    if (!outputs_placed_) place_outputs();
    return timings_.execute_ns;
  }

  // After the first run of a binding, its outputs get buffers of their own,
  // bound like ONNX Runtime's preallocated IoBinding outputs: later runs
  // write into them instead of allocating (and faulting in) fresh memory.
  void place_outputs() {
    outputs_placed_ = true;
    TensorMap placed;
    for (const auto& [name, tensor] : session_.bound_outputs()) {
      if (tensor.dtype() == DataType::kString || tensor.empty()) return;
      placed.emplace(name, Tensor(tensor.dtype(), tensor.shape()));
    }
    session_.bind(bound_inputs_, placed);
    session_.run();  // the placed buffers hold this binding's outputs
  }

  TensorMap fetch() override {
    const auto start = std::chrono::steady_clock::now();
    // Copies: the next run overwrites the placed buffers.
    TensorMap outputs;
    for (const auto& [name, tensor] : session_.bound_outputs())
      outputs.emplace(name, tensor.clone());
    timings_.convert_out_ns = nanoseconds_since(start);
    return outputs;
  }

  RunTimings last_timings() const override { return timings_; }

  std::vector<NodeEvent> node_events() const override {
    std::vector<NodeEvent> events;
    for (const runtime::NodeTime& time : session_.node_timings())
      events.push_back({time.node_name, time.op_type, time.start_ns, time.duration_ns, 0});
    return events;
  }

  static Capabilities native_capabilities() {
    Capabilities capabilities;
    capabilities.extra_outputs = true;
    capabilities.node_timing = true;
    capabilities.plan_cache = true;
    return capabilities;
  }

 private:
  runtime::Session open_session(const ModelSource& source, const BackendOptions& options) {
    refuse_unsupported_options(kName, options, native_capabilities());
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
    session_options.flush_denormals = flush_denormals(options);
    runtime::Session session = runtime::Session::load(source.require_onnx(kName), session_options);
    load_ms_ = static_cast<double>(nanoseconds_since(start)) / 1e6;
    return session;
  }

  BackendOptions options_;
  double load_ms_ = 0.0;
  runtime::Session session_;
  TensorMap bound_inputs_;
  bool outputs_placed_ = false;
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
    info.configuration = {{"kernels", "reference"}, {"cores", std::thread::hardware_concurrency()}};
    return info;
  }

  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override {
    return std::make_unique<NativeModel>(source, options);
  }
};

}  // namespace

std::unique_ptr<Backend> make_native_backend() { return std::make_unique<NativeBackend>(); }

}  // namespace inferlab::backends
