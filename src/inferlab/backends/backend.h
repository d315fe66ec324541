// Backend: one interface in front of every engine InferLab can run a model on
// (`native`, `onnxruntime`, `libtorch`, `python`), so that bench, accuracy,
// the profiler, the server and the tuner never care which engine is below.
//
//   BackendRegistry registry(BackendEnvironment::from_process_environment());
//   auto backend = registry.get("onnxruntime");
//   auto model = backend->open(ModelSource::resolve("resnet50/"), options);
//   TensorMap outputs = model->run({{"input", tensor}});
//
// The staged form is what a benchmark times: bind() converts the inputs into
// the engine's own tensor type and preallocates outputs where the engine
// allows it, execute() is the timed region (the engine's own execution, and
// nothing else), fetch() converts the outputs back. Conversions and, for
// out-of-process backends, channel time are reported in RunTimings beside it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/model_source.h"
#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::backends {

using TensorMap = std::map<std::string, Tensor>;

// Options every backend understands; a backend that cannot honour one says so
// with an Error(kUnsupported) naming the backend and the option.
struct BackendOptions {
  // Threads that compute one request, the caller included; 0 = one per core.
  int threads = 0;
  // Inter-op threads for engines that run independent nodes in parallel
  // (onnxruntime with parallel_execution); 0 = the engine's default.
  int inter_op_threads = 0;
  bool parallel_execution = false;
  // 0 none, 1 basic, 2 extended, 3 all (onnxruntime: disabled/basic/extended/all).
  int opt_level = 3;
  // Native backend: the widest vector ISA its kernels may use, "auto" (the
  // best the CPU has), "avx512", "avx2" or "portable". Other engines choose
  // their own code paths and ignore it.
  std::string max_isa = "auto";
  // "fp32" everywhere today; other precisions are refused by name.
  std::string precision = "fp32";
  // "cpu", or "cuda"/"cuda:N" where the engine and a GPU provide it.
  std::string device = "cpu";
  // Fixes symbolic input dims by input name.
  std::map<std::string, Shape> input_shapes;
  // Intermediate values (by value name) to return beside the model outputs,
  // for layer-by-layer comparison. Needs capabilities().extra_outputs.
  std::vector<std::string> extra_outputs;
  // Collect per-node timing events (NodeEvent). Needs capabilities().node_timing.
  bool node_timing = false;
  // Backend-specific settings, "key" -> "value", e.g. onnxruntime's
  // "save_optimized_model" or python's "mode". Unknown keys are an error.
  std::map<std::string, std::string> settings;
  // Worker processes only: a call (open, execute, run...) that takes longer
  // kills the worker and fails with kDeadlineExceeded; 0 = no limit. An
  // in-process backend cannot be interrupted and refuses it.
  double call_timeout_s = 0;
  // Directory of saved plans (docs/plan-format.md); needs
  // capabilities().plan_cache. Empty: no cache.
  std::string plan_cache_dir;
};

// What a model opened on a backend can do.
struct Capabilities {
  // run() may be called from several threads at once (native: with the
  // setting streams=N, its throughput mode).
  bool concurrent_run = false;
  bool extra_outputs = false;   // BackendOptions::extra_outputs honoured
  bool node_timing = false;     // BackendOptions::node_timing honoured
  bool out_of_process = false;  // the engine runs in a worker process
  bool plan_cache = false;      // BackendOptions::plan_cache_dir honoured
};

// One executed node, timed by the engine (profiler input).
struct NodeEvent {
  std::string node_name;
  std::string op_type;
  int64_t start_ns = 0;  // from the start of the execute() that ran it
  int64_t duration_ns = 0;
  int64_t thread_id = 0;
};

// Where the time of the last bind/execute/fetch went, in nanoseconds.
struct RunTimings {
  int64_t convert_in_ns = 0;   // InferLab tensors -> engine tensors (bind)
  int64_t execute_ns = 0;      // the engine's own execution (the timed region)
  int64_t convert_out_ns = 0;  // engine tensors -> InferLab tensors (fetch)
  int64_t channel_ns = 0;      // out-of-process only: transport beyond the above
  // Times the engine computed the model for the last execute() or run():
  // 1, always (a test holds every backend to it).
  int64_t engine_runs = 0;
};

// Measured while opening, inside the process that runs the model.
struct LoadTimings {
  double startup_ms = 0.0;  // process start + library import (0 when already loaded)
  double load_ms = 0.0;     // open the model file -> ready to run
};

// A model opened on one backend. Not copyable; destroying it frees the
// engine's session (and, out of process, stops the worker).
class Model {
 public:
  virtual ~Model() = default;
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  virtual const std::vector<model::ValueInfo>& inputs() const = 0;
  virtual const std::vector<model::ValueInfo>& outputs() const = 0;
  virtual Capabilities capabilities() const = 0;
  // Effective settings, as the engine applied them (threads, opt level, ...).
  virtual nlohmann::json configuration() const = 0;
  virtual LoadTimings load_timings() const = 0;

  // Staged run. Not thread-safe: one caller at a time, and not at the same
  // time as run().
  virtual void bind(const TensorMap& inputs) = 0;
  // Runs the bound inputs; returns the engine's execution time in ns.
  virtual int64_t execute() = 0;
  // Outputs of the last execute(), by name (model outputs, then extra outputs).
  virtual TensorMap fetch() = 0;
  // Of the last bind/execute/fetch or run() (with concurrent runs: one of them).
  virtual RunTimings last_timings() const = 0;
  // Node events of the last execute() when node_timing was asked for.
  virtual std::vector<NodeEvent> node_events() const { return {}; }

  // bind + execute + fetch. Thread-safe only when capabilities().concurrent_run.
  virtual TensorMap run(const TensorMap& inputs);
};

// Static facts about a backend on this machine.
struct BackendInfo {
  std::string name;
  bool available = false;
  std::string unavailable_reason;  // why not, when !available
  std::string version;             // exact engine version, e.g. "1.29.0"
  std::vector<std::string> devices;
  nlohmann::json configuration = nlohmann::json::object();  // library paths, env, ISA
  double startup_ms = 0.0;  // loading the backend (dlopen, or worker start + import)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual BackendInfo info() const = 0;
  // Opens a model; the artifact it needs (ONNX, TorchScript, Python factory)
  // comes from `source`. Errors name the backend, the model and the reason.
  virtual std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) = 0;
};

// Checks that `inputs` names exactly the model's inputs with matching dtypes
// and ranks/static dims; throws Error(kInvalidArgument) naming the input.
void check_inputs(const std::string& backend, const std::vector<model::ValueInfo>& expected,
                  const TensorMap& inputs);

// Throws Error(kUnsupported) naming the backend for options it cannot honour.
void refuse_unsupported_options(const std::string& backend, const BackendOptions& options,
                                const Capabilities& capabilities);

nlohmann::json value_info_json(const model::ValueInfo& info);
model::ValueInfo value_info_from_json(const nlohmann::json& json);
nlohmann::json options_json(const BackendOptions& options);
BackendOptions options_from_json(const nlohmann::json& json);

}  // namespace inferlab::backends
