// A TorchScript model on LibTorch. TorchScript carries no tensor names, so the
// manifest's inputs and outputs (in order) describe the model; the module is
// loaded in eval mode, then frozen (weights become constants, so the JIT can
// fold and fuse them) and optimized for inference unless opt_level or the
// `freeze` setting says otherwise. Every forward runs under c10::InferenceMode.
// This is the only file that includes <torch/script.h>.
#include "inferlab/backends/libtorch/libtorch_model.h"
#include "inferlab/core/stopwatch.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

namespace inferlab::backends::libtorch {

namespace {

using Clock = std::chrono::steady_clock;

struct DtypePair {
  DataType inferlab;
  at::ScalarType torch;
};

constexpr DtypePair kDtypes[] = {
    {DataType::kFloat32, at::kFloat}, {DataType::kFloat64, at::kDouble},
    {DataType::kFloat16, at::kHalf},  {DataType::kBFloat16, at::kBFloat16},
    {DataType::kInt64, at::kLong},    {DataType::kInt32, at::kInt},
    {DataType::kInt16, at::kShort},   {DataType::kInt8, at::kChar},
    {DataType::kUint8, at::kByte},    {DataType::kBool, at::kBool},
};

at::ScalarType torch_dtype(DataType dtype, const std::string& input) {
  for (const DtypePair& pair : kDtypes) {
    if (pair.inferlab == dtype) return pair.torch;
  }
  fail(ErrorCode::kUnsupported, "{}: input '{}' has element type {}, which LibTorch lacks",
       kBackendName, input, dtype_name(dtype));
}

DataType inferlab_dtype(at::ScalarType type, const std::string& output) {
  for (const DtypePair& pair : kDtypes) {
    if (pair.torch == type) return pair.inferlab;
  }
  fail(ErrorCode::kUnsupported, "{}: output '{}' has LibTorch element type {}, unknown to InferLab",
       kBackendName, output, c10::toString(type));
}

// c10::Error's what() carries a C++ backtrace; users need the message.
std::string torch_message(const c10::Error& error) {
  std::string message = error.what_without_backtrace();
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
    message.pop_back();
  return message;
}

bool parse_switch(const std::string& key, const std::string& value) {
  if (value == "1" || value == "true" || value == "on") return true;
  if (value == "0" || value == "false" || value == "off") return false;
  fail(ErrorCode::kInvalidArgument, "{}: setting '{}' must be 0 or 1, got '{}'", kBackendName, key,
       value);
}

// How the module is prepared: opt_level 0 runs it as saved, 1 freezes it,
// 2 and 3 also optimize it for inference; settings override either step.
struct Preparation {
  bool freeze = true;
  bool optimize = true;
};

Preparation parse_preparation(const BackendOptions& options) {
  Preparation preparation{options.opt_level >= 1, options.opt_level >= 2};
  for (const auto& [key, value] : options.settings) {
    if (key == "freeze") {
      preparation.freeze = parse_switch(key, value);
    } else if (key == "optimize_for_inference") {
      preparation.optimize = parse_switch(key, value);
    } else {
      fail(ErrorCode::kInvalidArgument,
           "{}: unknown setting '{}' (known: freeze, optimize_for_inference)", kBackendName, key);
    }
  }
  preparation.optimize = preparation.optimize && preparation.freeze;  // it works on frozen graphs
  return preparation;
}

c10::Device parse_device(const std::string& device) {
  if (device == "cpu") return c10::Device(c10::kCPU);
  if (device != "cuda" && device.rfind("cuda:", 0) != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: unknown device '{}' (cpu, cuda, cuda:N)", kBackendName,
         device);
  }
  if (!torch::cuda::is_available()) {
    fail(ErrorCode::kUnsupported, "{}: device '{}' is not available (no CUDA GPU for LibTorch)",
         kBackendName, device);
  }
  try {
    c10::Device parsed(device);
    if (parsed.has_index() && parsed.index() >= static_cast<int>(torch::cuda::device_count()))
      fail(ErrorCode::kInvalidArgument, "{}: there is no device '{}'", kBackendName, device);
    return parsed;
  } catch (const c10::Error& error) {
    fail(ErrorCode::kInvalidArgument, "{}: bad device '{}': {}", kBackendName, device,
         torch_message(error));
  }
}

int resolved_threads(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Intra-op threads follow the options. The inter-op pool (for fork/wait in
// scripted code, which frozen inference graphs do not use) is kept to one
// thread; it can be sized only before its first use, hence once per process.
void configure_threads(int threads) {
  at::set_num_threads(threads);
  static std::once_flag interop_once;
  std::call_once(interop_once, [] {
    try {
      at::set_num_interop_threads(1);
    } catch (const c10::Error&) {
      // Already started by an earlier user in this process: keep its size.
    }
  });
}

std::vector<model::ValueInfo> described_inputs(const ModelSource& source,
                                               const BackendOptions& options) {
  std::vector<model::ValueInfo> inputs;
  for (const InputSpec& spec : source.inputs) inputs.push_back(spec.info);
  for (const auto& entry : options.input_shapes) {
    const std::string& name = entry.first;
    const Shape& shape = entry.second;
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const model::ValueInfo& info) { return info.name == name; });
    if (it == inputs.end()) {
      fail(ErrorCode::kInvalidArgument, "{}: input_shapes names '{}', not an input of model '{}'",
           kBackendName, name, source.name);
    }
    bool fits = !it->has_shape || it->dims.size() == shape.size();
    for (size_t i = 0; fits && it->has_shape && i < shape.size(); ++i)
      fits = !it->dims[i].is_static() || it->dims[i].value == shape[i];
    if (!fits) {
      fail(ErrorCode::kInvalidArgument, "{}: input_shapes gives '{}' shape {}, the model has {}",
           kBackendName, name, shape_to_string(shape), it->to_string());
    }
    it->has_shape = true;
    it->dims.clear();
    for (int64_t size : shape) it->dims.push_back(model::Dim::fixed(size));
  }
  return inputs;
}

std::vector<model::ValueInfo> described_outputs(const ModelSource& source) {
  std::vector<model::ValueInfo> outputs;
  for (const OutputSpec& spec : source.outputs) outputs.push_back(spec.info);
  return outputs;
}

Tensor to_inferlab_tensor(const at::Tensor& result, const std::string& name) {
  at::Tensor host = result.to(c10::kCPU).contiguous();
  Tensor tensor(inferlab_dtype(host.scalar_type(), name),
                Shape(host.sizes().begin(), host.sizes().end()));
  if (tensor.nbytes() > 0) std::memcpy(tensor.raw_data(), host.data_ptr(), tensor.nbytes());
  return tensor;
}

class LibTorchModel final : public Model {
 public:
  LibTorchModel(const ModelSource& source, const BackendOptions& options)
      : model_name_(source.name),
        torchscript_path_(source.require_torchscript(kBackendName)),
        options_(options),
        preparation_(parse_preparation(options)),
        device_(parse_device(options.device)),
        threads_(resolved_threads(options.threads)),
        inputs_(described_inputs(source, options)),
        outputs_(described_outputs(source)) {
    refuse_unsupported_options(kBackendName, options, capabilities());
    configure_threads(threads_);
    const auto start = Clock::now();
    module_ = load_module();
    load_ms_ = static_cast<double>(nanoseconds_since(start)) / 1e6;
  }

  const std::vector<model::ValueInfo>& inputs() const override { return inputs_; }
  const std::vector<model::ValueInfo>& outputs() const override { return outputs_; }
  LoadTimings load_timings() const override { return {0.0, load_ms_}; }
  RunTimings last_timings() const override {
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    return timings_;
  }

  Capabilities capabilities() const override {
    Capabilities capabilities;
    capabilities.concurrent_run = true;  // run() keeps no state; forward is thread-safe
    return capabilities;
  }

  nlohmann::json configuration() const override {
    return {{"threads_requested", options_.threads},
            {"threads_used", threads_},
            {"interop_threads", at::get_num_interop_threads()},
            {"opt_level", options_.opt_level},
            {"frozen", preparation_.freeze},
            {"optimized_for_inference", preparation_.optimize},
            {"inference_mode", true},
            {"device", device_.str()},
            {"torchscript", torchscript_path_}};
  }

  void bind(const TensorMap& inputs) override {
    const auto start = Clock::now();
    check_inputs(kBackendName, inputs_, inputs);
    bound_ = to_torch(inputs);
    result_ = c10::IValue();
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_ = {};
    timings_.convert_in_ns = nanoseconds_since(start);
  }

  int64_t execute() override {
    if (bound_.empty()) {
      fail(ErrorCode::kInvalidArgument, "{}: execute() on model '{}' before bind()", kBackendName,
           model_name_);
    }
    const int64_t calls_before = forward_calls_;
    const auto start = Clock::now();
    result_ = forward(bound_);
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_.execute_ns = nanoseconds_since(start);
    timings_.engine_runs = forward_calls_ - calls_before;
    return timings_.execute_ns;
  }

  TensorMap fetch() override {
    if (result_.isNone()) {
      fail(ErrorCode::kInvalidArgument, "{}: fetch() on model '{}' before execute()", kBackendName,
           model_name_);
    }
    const auto start = Clock::now();
    TensorMap outputs = to_inferlab(result_);
    const std::lock_guard<std::mutex> lock(timings_mutex_);
    timings_.convert_out_ns = nanoseconds_since(start);
    return outputs;
  }

  // Stateless, so several threads may run at once; last_timings() is left as is.
  TensorMap run(const TensorMap& inputs) override {
    check_inputs(kBackendName, inputs_, inputs);
    const int64_t calls_before = forward_calls_;
    const auto start = Clock::now();
    c10::IValue result = forward(to_torch(inputs));
    RunTimings timings;
    timings.execute_ns = nanoseconds_since(start);
    timings.engine_runs = forward_calls_ - calls_before;  // other threads' calls may land too
    {
      const std::lock_guard<std::mutex> lock(timings_mutex_);
      timings_ = timings;
    }
    return to_inferlab(result);
  }

 private:
  torch::jit::Module load_module() {
    torch::jit::Module module;
    try {
      module = torch::jit::load(torchscript_path_, device_);
    } catch (const c10::Error& error) {
      fail(ErrorCode::kInvalidModel, "{}: cannot load the TorchScript file '{}' of model '{}': {}",
           kBackendName, torchscript_path_, model_name_, torch_message(error));
    }
    if (!module.find_method("forward")) {
      fail(ErrorCode::kInvalidModel, "{}: TorchScript file '{}' of model '{}' has no forward()",
           kBackendName, torchscript_path_, model_name_);
    }
    module.eval();
    try {
      if (preparation_.freeze) module = torch::jit::freeze(module);
      if (preparation_.optimize) module = torch::jit::optimize_for_inference(module);
    } catch (const c10::Error& error) {
      fail(ErrorCode::kInvalidModel,
           "{}: cannot freeze/optimize model '{}' (try settings freeze=0): {}", kBackendName,
           model_name_, torch_message(error));
    }
    return module;
  }

  // Copies the inputs (manifest order) into tensors LibTorch owns.
  std::vector<c10::IValue> to_torch(const TensorMap& inputs) const {
    std::vector<c10::IValue> values;
    values.reserve(inputs_.size());
    for (const model::ValueInfo& info : inputs_) {
      const Tensor& tensor = inputs.at(info.name);
      std::vector<int64_t> sizes(tensor.shape().begin(), tensor.shape().end());
      at::Tensor view = torch::from_blob(const_cast<void*>(tensor.raw_data()), sizes,
                                         at::TensorOptions(torch_dtype(tensor.dtype(), info.name)));
      values.emplace_back(device_.is_cpu() ? view.clone() : view.to(device_));
    }
    return values;
  }

  c10::IValue forward(std::vector<c10::IValue> inputs) const {
    // Intra-op thread counts are per calling thread under OpenMP.
    if (at::get_num_threads() != threads_) at::set_num_threads(threads_);
    c10::InferenceMode inference_mode;
    ++forward_calls_;
    try {
      return module_.get_method("forward")(std::move(inputs));
    } catch (const c10::Error& error) {
      fail(ErrorCode::kRuntime, "{}: model '{}' failed: {}", kBackendName, model_name_,
           torch_message(error));
    } catch (const std::exception& error) {
      fail(ErrorCode::kRuntime, "{}: model '{}' failed: {}", kBackendName, model_name_,
           error.what());
    }
  }

  // The forward's result (a tensor, or a tuple/list of them) by manifest name.
  TensorMap to_inferlab(const c10::IValue& result) const {
    std::vector<c10::IValue> elements;
    if (result.isTuple()) {
      elements = result.toTupleRef().elements().vec();
    } else if (result.isList()) {
      elements = result.toListRef().vec();
    } else {
      elements = {result};
    }
    if (elements.size() != outputs_.size()) {
      fail(ErrorCode::kInvalidModel, "{}: model '{}' returned {} outputs, its manifest names {}",
           kBackendName, model_name_, elements.size(), outputs_.size());
    }
    TensorMap outputs;
    for (size_t i = 0; i < elements.size(); ++i) {
      const std::string& name = outputs_[i].name;
      if (!elements[i].isTensor()) {
        fail(ErrorCode::kInvalidModel, "{}: output '{}' of model '{}' is a {}, not a tensor",
             kBackendName, name, model_name_, elements[i].tagKind());
      }
      outputs.emplace(name, to_inferlab_tensor(elements[i].toTensor(), name));
    }
    return outputs;
  }

  std::string model_name_;
  std::string torchscript_path_;
  BackendOptions options_;
  Preparation preparation_;
  c10::Device device_;
  int threads_;
  std::vector<model::ValueInfo> inputs_;
  std::vector<model::ValueInfo> outputs_;
  // A handle: get_method() is const and its function may run on several threads.
  torch::jit::Module module_;
  double load_ms_ = 0.0;
  std::vector<c10::IValue> bound_;
  c10::IValue result_;
  mutable std::mutex timings_mutex_;
  RunTimings timings_;
  mutable std::atomic<int64_t> forward_calls_{0};  // each call's engine_runs is its share
};

}  // namespace

std::unique_ptr<Model> open_model(const ModelSource& source, const BackendOptions& options) {
  const std::string& path = source.require_torchscript(kBackendName);
  if (source.inputs.empty() || source.outputs.empty()) {
    fail(ErrorCode::kInvalidArgument,
         "{}: needs a model directory (model.json) naming the inputs and outputs of '{}'",
         kBackendName, path);
  }
  return std::make_unique<LibTorchModel>(source, options);
}

}  // namespace inferlab::backends::libtorch
