// OrtModel: an ORT session behind the Model interface (see ort_model.h).
#include "inferlab/backends/onnxruntime/ort_model.h"

#include <chrono>
#include <filesystem>

#include "inferlab/backends/onnxruntime/onnx_rewrite.h"
#include "inferlab/backends/onnxruntime/ort_values.h"
#include "inferlab/backends/onnxruntime/session_config.h"
#include "inferlab/core/error.h"

namespace inferlab::backends::ort {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kBackendName = "onnxruntime";

int64_t elapsed_ns(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

ErrorCode error_code_for(OrtErrorCode code, ErrorCode fallback) {
  switch (code) {
    case ORT_NO_SUCHFILE:
      return ErrorCode::kNotFound;
    case ORT_NOT_IMPLEMENTED:
      return ErrorCode::kUnsupported;
    case ORT_INVALID_ARGUMENT:
      return fallback == ErrorCode::kRuntime ? ErrorCode::kInvalidArgument : fallback;
    default:
      return fallback;
  }
}

// Runs `function`, turning ORT's exceptions into inferlab::Error naming the model.
template <typename Function>
decltype(auto) call_ort(ErrorCode fallback, const std::string& model_path, Function&& function) {
  try {
    return function();
  } catch (const Ort::Exception& error) {
    throw Error(error_code_for(error.GetOrtErrorCode(), fallback),
                fmt::format("onnxruntime: model {}: {}", model_path, error.what()));
  }
}

}  // namespace

OrtModel::OrtModel(std::shared_ptr<OrtLibrary> library, std::shared_ptr<Ort::Env> env,
                   const std::string& model_path, const BackendOptions& options)
    : library_(std::move(library)), env_(std::move(env)), model_path_(model_path) {
  const auto start = Clock::now();
  refuse_unsupported_options(kBackendName, options, capabilities());
  node_timing_ = options.node_timing;
  create_session(options);
  call_ort(ErrorCode::kInvalidModel, model_path_, [&] {
    describe_values(options);
    cpu_memory_ = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    binding_ = Ort::IoBinding(session_);
  });
  if (node_timing_) profile_directory_ = std::make_unique<ProfileDirectory>();
  load_timings_.load_ms = static_cast<double>(elapsed_ns(start)) / 1e6;
}

OrtModel::~OrtModel() = default;

Capabilities OrtModel::capabilities() const {
  Capabilities capabilities;
  capabilities.concurrent_run = true;
  capabilities.extra_outputs = true;
  capabilities.node_timing = true;
  return capabilities;
}

void OrtModel::create_session(const BackendOptions& options) {
  std::unique_ptr<OnnxFile> file;
  if (!options.input_shapes.empty() || !options.extra_outputs.empty()) {
    file = std::make_unique<OnnxFile>(model_path_);
  }
  const std::map<std::string, int64_t> free_dims =
      file ? file->free_dimension_sizes(options.input_shapes) : std::map<std::string, int64_t>{};
  std::string rewritten;
  size_t extra_outputs_added = 0;
  if (!options.extra_outputs.empty()) {
    rewritten = file->with_extra_outputs(options.extra_outputs, &extra_outputs_added);
  }
  const std::string external_data_dir =
      rewritten.empty() ? "" : std::filesystem::path(model_path_).parent_path().string();
  SessionConfig config = call_ort(ErrorCode::kInvalidArgument, model_path_, [&] {
    return make_session_config(options, *library_, free_dims, external_data_dir);
  });
  session_ = call_ort(ErrorCode::kInvalidModel, model_path_, [&] {
    if (rewritten.empty()) return Ort::Session(*env_, model_path_.c_str(), config.session_options);
    return Ort::Session(*env_, rewritten.data(), rewritten.size(), config.session_options);
  });
  configuration_ = std::move(config.configuration);
  configuration_["model"] = model_path_;
  configuration_["extra_outputs"] = options.extra_outputs;
  configuration_["node_timing"] = options.node_timing;
  // The model's outputs come first in ORT's list; extra outputs were appended.
  model_output_count_ = session_.GetOutputCount() - extra_outputs_added;
}

void OrtModel::describe_values(const BackendOptions& options) {
  Ort::AllocatorWithDefaultOptions allocator;
  for (size_t i = 0; i < session_.GetInputCount(); ++i) {
    const std::string name = session_.GetInputNameAllocated(i, allocator).get();
    model::ValueInfo info = value_info_from_ort(name, session_.GetInputTypeInfo(i));
    // Dims without a symbol name cannot be overridden in ORT: fix them here,
    // so check_inputs holds callers to the shape they asked for.
    if (auto it = options.input_shapes.find(name);
        it != options.input_shapes.end() && it->second.size() == info.dims.size()) {
      for (size_t d = 0; d < info.dims.size(); ++d) info.dims[d] = model::Dim::fixed(it->second[d]);
    }
    input_names_.push_back(name);
    inputs_.push_back(std::move(info));
  }
  for (size_t i = 0; i < session_.GetOutputCount(); ++i) {
    const std::string name = session_.GetOutputNameAllocated(i, allocator).get();
    all_outputs_.push_back(value_info_from_ort(name, session_.GetOutputTypeInfo(i)));
    output_names_.push_back(name);
  }
  outputs_.assign(all_outputs_.begin(),
                  all_outputs_.begin() + static_cast<std::ptrdiff_t>(model_output_count_));
  for (const std::string& name : input_names_) input_name_pointers_.push_back(name.c_str());
  for (const std::string& name : output_names_) output_name_pointers_.push_back(name.c_str());

  nlohmann::json& described = configuration_["values"];
  for (const model::ValueInfo& info : inputs_) described["inputs"].push_back(value_info_json(info));
  for (const model::ValueInfo& info : all_outputs_) {
    described["outputs"].push_back(value_info_json(info));
  }
}

std::vector<Ort::Value> OrtModel::wrap_inputs(std::vector<Tensor>& held,
                                              const TensorMap& inputs) const {
  Ort::AllocatorWithDefaultOptions allocator;
  held.clear();
  held.reserve(input_names_.size());
  std::vector<Ort::Value> values;
  values.reserve(input_names_.size());
  for (const std::string& name : input_names_) {
    held.push_back(inputs.at(name));
    values.push_back(wrap_tensor(held.back(), cpu_memory_, allocator));
  }
  return values;
}

std::vector<Tensor> OrtModel::preallocate_outputs() const {
  std::vector<Tensor> outputs(all_outputs_.size());
  for (size_t i = 0; i < all_outputs_.size(); ++i) {
    const model::ValueInfo& info = all_outputs_[i];
    if (info.has_shape && info.is_static() && info.dtype != DataType::kString) {
      outputs[i] = Tensor(info.dtype, info.static_shape());
    }
  }
  return outputs;
}

void OrtModel::bind(const TensorMap& inputs) {
  const auto start = Clock::now();
  bound_ = false;
  executed_ = false;
  check_inputs(kBackendName, inputs_, inputs);
  if (bound_outputs_.empty()) bound_outputs_ = preallocate_outputs();
  std::vector<Tensor> held;
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<Ort::Value> values = wrap_inputs(held, inputs);
    binding_.ClearBoundInputs();
    binding_.ClearBoundOutputs();
    for (size_t i = 0; i < values.size(); ++i)
      binding_.BindInput(input_names_[i].c_str(), values[i]);
    for (size_t i = 0; i < output_names_.size(); ++i) {
      if (bound_outputs_[i].empty()) {
        binding_.BindOutput(output_names_[i].c_str(), cpu_memory_);
      } else {
        binding_.BindOutput(output_names_[i].c_str(),
                            wrap_tensor(bound_outputs_[i], cpu_memory_, allocator));
      }
    }
  });
  bound_inputs_ = std::move(held);
  bound_ = true;
  std::lock_guard<std::mutex> lock(timings_mutex_);
  timings_ = RunTimings{};
  timings_.convert_in_ns = elapsed_ns(start);
}

int64_t OrtModel::execute() {
  if (!bound_)
    fail(ErrorCode::kRuntime, "onnxruntime: model {}: execute() before bind()", model_path_);
  std::string profile_prefix;
  if (node_timing_) {
    profile_prefix = profile_directory_->next_prefix();
    run_options_.EnableProfiling(profile_prefix.c_str());
  }
  executed_ = false;
  const int64_t runs_before = engine_runs_;
  const auto start = Clock::now();
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    ++engine_runs_;
    session_.Run(run_options_, binding_);
  });
  const int64_t execute_ns = elapsed_ns(start);
  if (node_timing_) node_events_ = profile_directory_->take_events(profile_prefix);
  executed_ = true;
  std::lock_guard<std::mutex> lock(timings_mutex_);
  timings_.execute_ns = execute_ns;
  timings_.convert_out_ns = 0;
  timings_.engine_runs = engine_runs_ - runs_before;
  return execute_ns;
}

TensorMap OrtModel::fetch() {
  if (!executed_)
    fail(ErrorCode::kRuntime, "onnxruntime: model {}: fetch() before execute()", model_path_);
  const auto start = Clock::now();
  TensorMap outputs;
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    const std::vector<Ort::Value> values = binding_.GetOutputValues();
    for (size_t i = 0; i < values.size() && i < output_names_.size(); ++i) {
      outputs[output_names_[i]] = copy_to_tensor(values[i], output_names_[i]);
    }
  });
  std::lock_guard<std::mutex> lock(timings_mutex_);
  timings_.convert_out_ns = elapsed_ns(start);
  return outputs;
}

RunTimings OrtModel::last_timings() const {
  std::lock_guard<std::mutex> lock(timings_mutex_);
  return timings_;
}

void OrtModel::record_timings(const RunTimings& timings) {
  std::lock_guard<std::mutex> lock(timings_mutex_);
  timings_ = timings;
}

TensorMap OrtModel::run(const TensorMap& inputs) {
  if (node_timing_) {
    // Profiled runs share the profile directory and the staged state.
    std::lock_guard<std::mutex> lock(profiled_run_mutex_);
    return Model::run(inputs);
  }
  RunTimings timings;
  auto start = Clock::now();
  check_inputs(kBackendName, inputs_, inputs);
  std::vector<Tensor> held;
  std::vector<Tensor> outputs = preallocate_outputs();
  std::vector<Ort::Value> input_values;
  std::vector<Ort::Value> output_values;
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    Ort::AllocatorWithDefaultOptions allocator;
    input_values = wrap_inputs(held, inputs);
    for (Tensor& output : outputs) {
      output_values.push_back(output.empty() ? Ort::Value(nullptr)
                                             : wrap_tensor(output, cpu_memory_, allocator));
    }
  });
  timings.convert_in_ns = elapsed_ns(start);
  const int64_t runs_before = engine_runs_;
  start = Clock::now();
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    ++engine_runs_;
    session_.Run(run_options_, input_name_pointers_.data(), input_values.data(),
                 input_values.size(), output_name_pointers_.data(), output_values.data(),
                 output_values.size());
  });
  timings.execute_ns = elapsed_ns(start);
  timings.engine_runs = engine_runs_ - runs_before;  // other threads' runs may land in between
  start = Clock::now();
  TensorMap result;
  call_ort(ErrorCode::kRuntime, model_path_, [&] {
    for (size_t i = 0; i < outputs.size(); ++i) {
      result[output_names_[i]] =
          outputs[i].empty() ? copy_to_tensor(output_values[i], output_names_[i]) : outputs[i];
    }
  });
  timings.convert_out_ns = elapsed_ns(start);
  record_timings(timings);
  return result;
}

}  // namespace inferlab::backends::ort
