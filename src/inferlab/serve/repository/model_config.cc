#include "inferlab/serve/repository/model_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <set>
#include <sstream>

#include "inferlab/core/error.h"

namespace inferlab::serve {
namespace {

namespace fs = std::filesystem;
using config::ModelConfig;

// Keeps the first parse error, with its position (protobuf counts from 0).
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (message_.empty()) message_ = fmt::format("{}:{}: {}", line + 1, column + 1, message);
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

// Protobuf's message for a field the subset lacks names the field but not
// why it is missing.
std::string unsupported_field_hint(const std::string& message) {
  const bool unknown_field = message.find("has no field named") != std::string::npos ||
                             message.find("Cannot find field") != std::string::npos;
  return unknown_field ? " (InferLab's server supports part of Triton's ModelConfig: docs/serve.md)"
                       : "";
}

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(ErrorCode::kIo, "cannot read {}", path.string());
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void check_tensor_name(const std::string& name, std::string_view what, size_t index,
                       std::set<std::string>& seen, const std::string& source) {
  if (name.empty()) fail(ErrorCode::kInvalidArgument, "{}: {} {} has no name", source, what, index);
  if (!seen.insert(name).second) {
    fail(ErrorCode::kInvalidArgument, "{}: {} '{}' is listed twice", source, what, name);
  }
}

void check_data_type(config::DataType type, std::string_view what, const std::string& name,
                     const std::string& source) {
  if (type == config::TYPE_INVALID) {
    fail(ErrorCode::kInvalidArgument, "{}: {} '{}' has no data_type", source, what, name);
  }
  if (type == config::TYPE_STRING) {
    fail(ErrorCode::kUnsupported, "{}: {} '{}': data_type TYPE_STRING is not supported", source,
         what, name);
  }
}

template <typename Dims>
void check_dims(const Dims& dims, std::string_view what, const std::string& name,
                const std::string& source) {
  for (int64_t dim : dims) {
    if (dim < -1) {
      fail(ErrorCode::kInvalidArgument, "{}: {} '{}': dims has {} (a size, or -1 for any size)",
           source, what, name, dim);
    }
  }
}

void validate_tensors(const ModelConfig& config, const std::string& source) {
  std::set<std::string> seen;
  for (int i = 0; i < config.input_size(); ++i) {
    const config::ModelInput& input = config.input(i);
    check_tensor_name(input.name(), "input", i, seen, source);
    check_data_type(input.data_type(), "input", input.name(), source);
    check_dims(input.dims(), "input", input.name(), source);
  }
  seen.clear();
  for (int i = 0; i < config.output_size(); ++i) {
    const config::ModelOutput& output = config.output(i);
    check_tensor_name(output.name(), "output", i, seen, source);
    check_data_type(output.data_type(), "output", output.name(), source);
    check_dims(output.dims(), "output", output.name(), source);
  }
}

void validate_instances(const ModelConfig& config, const std::string& source) {
  for (int i = 0; i < config.instance_group_size(); ++i) {
    const config::ModelInstanceGroup& group = config.instance_group(i);
    if (group.kind() == config::ModelInstanceGroup::KIND_GPU || group.gpus_size() != 0) {
      fail(ErrorCode::kUnsupported,
           "{}: instance_group {}: GPU instances are not supported (kind: KIND_CPU)", source, i);
    }
    if (group.kind() == config::ModelInstanceGroup::KIND_MODEL) {
      fail(ErrorCode::kUnsupported, "{}: instance_group {}: kind KIND_MODEL is not supported",
           source, i);
    }
    if (group.count() < 0) {
      fail(ErrorCode::kInvalidArgument, "{}: instance_group {}: count is {}", source, i,
           group.count());
    }
  }
}

void validate_versions(const ModelConfig& config, const std::string& source) {
  const config::ModelVersionPolicy& policy = config.version_policy();
  if (policy.has_latest() && policy.latest().num_versions() == 0) {
    fail(ErrorCode::kInvalidArgument, "{}: version_policy latest: num_versions must be at least 1",
         source);
  }
  if (policy.has_specific()) {
    if (policy.specific().versions_size() == 0) {
      fail(ErrorCode::kInvalidArgument, "{}: version_policy specific lists no versions", source);
    }
    for (int64_t version : policy.specific().versions()) {
      if (version < 1) {
        fail(ErrorCode::kInvalidArgument,
             "{}: version_policy specific: version {} (versions count from 1)", source, version);
      }
    }
  }
}

void validate_batching(const ModelConfig& config, const std::string& source) {
  if (config.max_batch_size() < 0) {
    fail(ErrorCode::kInvalidArgument, "{}: max_batch_size is {}", source, config.max_batch_size());
  }
  if (!config.has_dynamic_batching()) return;
  const config::ModelDynamicBatching& batching = config.dynamic_batching();
  for (int32_t size : batching.preferred_batch_size()) {
    if (size < 1 || size > std::max(config.max_batch_size(), 1)) {
      fail(ErrorCode::kInvalidArgument,
           "{}: dynamic_batching: preferred_batch_size {} is outside [1, max_batch_size {}]",
           source, size, config.max_batch_size());
    }
  }
  const uint64_t levels = batching.priority_levels();
  if (levels == 0 && batching.default_priority_level() != 0) {
    fail(ErrorCode::kInvalidArgument,
         "{}: dynamic_batching: default_priority_level is set but priority_levels is not", source);
  }
  if (levels != 0 &&
      (batching.default_priority_level() < 1 || batching.default_priority_level() > levels)) {
    fail(ErrorCode::kInvalidArgument,
         "{}: dynamic_batching: default_priority_level {} is outside [1, priority_levels {}]",
         source, batching.default_priority_level(), levels);
  }
  for (const auto& [level, policy] : batching.priority_queue_policy()) {
    if (level < 1 || level > levels) {
      fail(ErrorCode::kInvalidArgument,
           "{}: dynamic_batching: priority_queue_policy for level {} outside [1, priority_levels "
           "{}]",
           source, level, levels);
    }
  }
}

}  // namespace

ModelConfig parse_model_config_text(std::string_view text, const std::string& source) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  ModelConfig config;
  if (!parser.ParseFromString(std::string(text), &config)) {
    fail(ErrorCode::kInvalidArgument, "{}:{}{}", source, errors.message(),
         unsupported_field_hint(errors.message()));
  }
  return config;
}

ModelConfig parse_model_config_json(std::string_view text, const std::string& source) {
  ModelConfig config;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(text.data(), text.size()), &config);
  if (!status.ok()) {
    const std::string message(status.message());
    fail(ErrorCode::kInvalidArgument, "{}: {}{}", source, message, unsupported_field_hint(message));
  }
  return config;
}

void validate_model_config(const ModelConfig& config, const std::string& model_name,
                           const std::string& source) {
  if (!config.name().empty() && config.name() != model_name) {
    fail(ErrorCode::kInvalidArgument, "{}: name '{}' differs from the model's folder '{}'", source,
         config.name(), model_name);
  }
  backend_of(config, source);
  validate_tensors(config, source);
  validate_instances(config, source);
  validate_versions(config, source);
  validate_batching(config, source);
}

std::string backend_of(const ModelConfig& config, const std::string& source) {
  static const std::set<std::string> kBackends = {"native", "onnxruntime", "libtorch", "python"};
  if (!config.backend().empty()) {
    if (kBackends.count(config.backend()) == 0) {
      fail(ErrorCode::kUnsupported,
           "{}: backend '{}' is not one of InferLab's: native, onnxruntime, libtorch, python",
           source, config.backend());
    }
    return config.backend();
  }
  if (config.platform().empty()) return {};
  if (config.platform() == "onnxruntime_onnx") return "onnxruntime";
  if (config.platform() == "pytorch_libtorch") return "libtorch";
  fail(ErrorCode::kUnsupported,
       "{}: platform '{}' is not supported (onnxruntime_onnx, pytorch_libtorch, or a backend)",
       source, config.platform());
}

ModelConfigFile read_model_config(const fs::path& model_dir) {
  const std::string model_name = model_dir.filename().string();
  const fs::path text_path = model_dir / "config.pbtxt";
  const fs::path json_path = model_dir / "config.json";
  const bool has_text = fs::exists(text_path);
  const bool has_json = fs::exists(json_path);
  if (has_text && has_json) {
    fail(ErrorCode::kInvalidArgument, "model '{}' has both config.pbtxt and config.json: keep one",
         model_name);
  }
  ModelConfigFile file;
  if (has_text || has_json) {
    file.path = has_text ? text_path : json_path;
    const std::string text = read_text(file.path);
    file.config = has_text ? parse_model_config_text(text, file.path.string())
                           : parse_model_config_json(text, file.path.string());
    validate_model_config(file.config, model_name, file.path.string());
  }
  if (file.config.name().empty()) file.config.set_name(model_name);
  return file;
}

}  // namespace inferlab::serve
