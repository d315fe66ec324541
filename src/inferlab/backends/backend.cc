// Shared pieces of the Backend interface: input checking every backend does
// the same way (so errors read the same whatever the engine), option refusal,
// and the JSON forms that cross the worker protocol.
#include "inferlab/backends/backend.h"

#include <set>

#include "inferlab/backends/tensor_wire.h"

namespace inferlab::backends {

TensorMap Model::run(const TensorMap& inputs) {
  bind(inputs);
  execute();
  return fetch();
}

namespace {

std::string dims_text(const model::ValueInfo& info) {
  if (!info.has_shape) return "[?]";
  std::string text = "[";
  for (size_t i = 0; i < info.dims.size(); ++i) {
    if (i > 0) text += ", ";
    const model::Dim& dim = info.dims[i];
    text += dim.is_static() ? std::to_string(dim.value)
                            : (dim.symbol.empty() ? std::string("?") : dim.symbol);
  }
  return text + "]";
}

void check_one_input(const std::string& backend, const model::ValueInfo& expected,
                     const Tensor& tensor) {
  if (expected.dtype != DataType::kUndefined && tensor.dtype() != expected.dtype) {
    fail(ErrorCode::kInvalidArgument, "{}: input '{}' has element type {}, the model expects {}",
         backend, expected.name, dtype_name(tensor.dtype()), dtype_name(expected.dtype));
  }
  if (!expected.has_shape) return;
  bool matches = tensor.rank() == static_cast<int64_t>(expected.dims.size());
  for (size_t i = 0; matches && i < expected.dims.size(); ++i) {
    const model::Dim& dim = expected.dims[i];
    if (dim.is_static() && dim.value != tensor.dim(static_cast<int64_t>(i))) matches = false;
  }
  if (!matches) {
    fail(ErrorCode::kInvalidArgument, "{}: input '{}' has shape {}, the model expects {}", backend,
         expected.name, shape_to_string(tensor.shape()), dims_text(expected));
  }
}

}  // namespace

void check_inputs(const std::string& backend, const std::vector<model::ValueInfo>& expected,
                  const TensorMap& inputs) {
  std::set<std::string> names;
  for (const model::ValueInfo& info : expected) names.insert(info.name);
  for (const auto& [name, tensor] : inputs) {
    if (names.count(name) == 0) {
      std::string known;
      for (const std::string& known_name : names) known += (known.empty() ? "" : ", ") + known_name;
      fail(ErrorCode::kInvalidArgument, "{}: '{}' is not an input of the model (inputs: {})",
           backend, name, known);
    }
  }
  for (const model::ValueInfo& info : expected) {
    auto it = inputs.find(info.name);
    if (it == inputs.end()) {
      fail(ErrorCode::kInvalidArgument, "{}: input '{}' ({}{}) is missing", backend, info.name,
           dtype_name(info.dtype), dims_text(info));
    }
    check_one_input(backend, info, it->second);
  }
}

void refuse_unsupported_options(const std::string& backend, const BackendOptions& options,
                                const Capabilities& capabilities) {
  if (options.threads < 0) {
    fail(ErrorCode::kInvalidArgument, "{}: threads must be >= 0, got {}", backend, options.threads);
  }
  if (options.opt_level < 0 || options.opt_level > 3) {
    fail(ErrorCode::kInvalidArgument, "{}: opt_level must be 0..3, got {}", backend,
         options.opt_level);
  }
  if (options.precision != "fp32") {
    fail(ErrorCode::kUnsupported, "{}: precision '{}' is not supported (only fp32)", backend,
         options.precision);
  }
  if (!options.extra_outputs.empty() && !capabilities.extra_outputs) {
    fail(ErrorCode::kUnsupported, "{}: cannot return intermediate values (asked for '{}')", backend,
         options.extra_outputs.front());
  }
  if (options.call_timeout_s < 0) {
    fail(ErrorCode::kInvalidArgument, "{}: call_timeout_s must be >= 0, got {}", backend,
         options.call_timeout_s);
  }
  if (options.call_timeout_s > 0 && !capabilities.out_of_process) {
    fail(ErrorCode::kUnsupported,
         "{}: a call timeout needs the backend in a worker process (it cannot interrupt a call "
         "in this one)",
         backend);
  }
  if (!options.plan_cache_dir.empty() && !capabilities.plan_cache) {
    fail(ErrorCode::kUnsupported, "{}: has no plan cache (asked for {})", backend,
         options.plan_cache_dir);
  }
  if (options.node_timing && !capabilities.node_timing) {
    fail(ErrorCode::kUnsupported, "{}: per-node timing is not available", backend);
  }
}

nlohmann::json value_info_json(const model::ValueInfo& info) {
  nlohmann::json dims = nullptr;
  if (info.has_shape) {
    dims = nlohmann::json::array();
    for (const model::Dim& dim : info.dims) {
      if (dim.is_static())
        dims.push_back(dim.value);
      else
        dims.push_back(dim.symbol);
    }
  }
  return {{"name", info.name},
          {"dtype", info.dtype == DataType::kUndefined ? "undefined" : wire_dtype_name(info.dtype)},
          {"dims", dims}};
}

model::ValueInfo value_info_from_json(const nlohmann::json& json) {
  model::ValueInfo info;
  info.name = json.at("name").get<std::string>();
  const std::string dtype = json.value("dtype", "undefined");
  info.dtype = dtype == "undefined" ? DataType::kUndefined : parse_wire_dtype(dtype);
  const nlohmann::json& dims = json.contains("dims") ? json.at("dims") : nlohmann::json();
  info.has_shape = dims.is_array();
  if (info.has_shape) {
    for (const nlohmann::json& dim : dims) {
      info.dims.push_back(dim.is_number_integer() ? model::Dim::fixed(dim.get<int64_t>())
                                                  : model::Dim::symbolic(dim.get<std::string>()));
    }
  }
  return info;
}

nlohmann::json options_json(const BackendOptions& options) {
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, shape] : options.input_shapes) shapes[name] = shape;
  return {{"threads", options.threads},
          {"inter_op_threads", options.inter_op_threads},
          {"parallel_execution", options.parallel_execution},
          {"opt_level", options.opt_level},
          {"max_isa", options.max_isa},
          {"precision", options.precision},
          {"device", options.device},
          {"input_shapes", shapes},
          {"extra_outputs", options.extra_outputs},
          {"node_timing", options.node_timing},
          {"plan_cache_dir", options.plan_cache_dir},
          {"settings", options.settings}};
}

BackendOptions options_from_json(const nlohmann::json& json) {
  BackendOptions options;
  options.threads = json.value("threads", options.threads);
  options.inter_op_threads = json.value("inter_op_threads", options.inter_op_threads);
  options.parallel_execution = json.value("parallel_execution", options.parallel_execution);
  options.opt_level = json.value("opt_level", options.opt_level);
  options.max_isa = json.value("max_isa", options.max_isa);
  options.precision = json.value("precision", options.precision);
  options.device = json.value("device", options.device);
  if (json.contains("input_shapes")) {
    for (const auto& [name, shape] : json.at("input_shapes").items())
      options.input_shapes[name] = shape.get<Shape>();
  }
  options.extra_outputs = json.value("extra_outputs", std::vector<std::string>{});
  options.node_timing = json.value("node_timing", false);
  options.plan_cache_dir = json.value("plan_cache_dir", std::string());
  options.settings = json.value("settings", std::map<std::string, std::string>{});
  return options;
}

}  // namespace inferlab::backends
