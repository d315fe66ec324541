// A model's configuration in a Triton-layout repository: REPO/<model>/
// config.pbtxt (protobuf text format) or config.json, over the subset of
// Triton's ModelConfig that InferLab supports (model_config.proto).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "inferlab/serve/repository/model_config.pb.h"

namespace inferlab::serve {

struct ModelConfigFile {
  config::ModelConfig config;
  std::filesystem::path path;  // the file read; empty when the model has none
};

// Reads and validates the config of the model in `model_dir` (the folder's
// name is the model's). Without a file the config is empty but for the
// name, to be completed from the model. Both files present, a parse error
// or an invalid field: Error naming the file, and the line or field.
ModelConfigFile read_model_config(const std::filesystem::path& model_dir);

// `source` names the file in errors.
config::ModelConfig parse_model_config_text(std::string_view text, const std::string& source);
config::ModelConfig parse_model_config_json(std::string_view text, const std::string& source);

// What InferLab supports of a parsed config: throws kInvalidArgument (a
// value Triton would refuse too) or kUnsupported (valid for Triton, not
// here), naming `source` and the field.
void validate_model_config(const config::ModelConfig& config, const std::string& model_name,
                           const std::string& source);

// InferLab's backend for the config's "backend", or its "platform" when
// only that is set (Triton's onnxruntime_onnx, pytorch_libtorch); empty
// when neither is set.
std::string backend_of(const config::ModelConfig& config, const std::string& source);

}  // namespace inferlab::serve
