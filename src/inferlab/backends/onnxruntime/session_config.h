// BackendOptions -> ONNX Runtime SessionOptions, with the backend-specific
// settings checked by name, and the effective configuration as JSON.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/onnxruntime/ort_api.h"
#include "inferlab/backends/onnxruntime/ort_library.h"

namespace inferlab::backends::ort {

struct SessionConfig {
  Ort::SessionOptions session_options;
  nlohmann::json configuration = nlohmann::json::object();
};

// `free_dims`: symbolic dim name -> size (from BackendOptions::input_shapes).
// `external_data_dir`: set when the model is created from bytes, so that its
// external data files resolve against the model's own directory ("" = none).
// Throws Error(kInvalidArgument) for unknown settings or devices,
// Error(kUnsupported) for an execution provider this library lacks.
SessionConfig make_session_config(const BackendOptions& options, const OrtLibrary& library,
                                  const std::map<std::string, int64_t>& free_dims,
                                  const std::string& external_data_dir);

// The settings keys this backend understands, for messages and docs.
const std::map<std::string, std::string>& known_settings();

}  // namespace inferlab::backends::ort
