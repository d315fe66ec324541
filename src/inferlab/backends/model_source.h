// ModelSource: one model's artifacts for different engines, named once so a
// user can say "this model" and run it everywhere. It comes from a model
// directory holding `model.json` (the manifest, see docs/model-format.md), from
// the manifest file itself, or from a bare `.onnx` / TorchScript `.pt` file.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/model/graph.h"

namespace inferlab::backends {

// A Python-side model: `factory` ("module:function", called with `kwargs`)
// imported with `module_path` on sys.path, then `state_dict` loaded into it;
// or `saved_module`, a whole module saved with torch.save.
struct PythonModelSpec {
  std::string factory;
  std::string module_path;
  std::string state_dict;
  std::string saved_module;
  nlohmann::json kwargs = nlohmann::json::object();
};

struct InputSpec {
  model::ValueInfo info;                           // dims may be symbolic ("batch")
  std::optional<std::pair<double, double>> range;  // [low, high) of valid values
};

struct OutputSpec {
  model::ValueInfo info;
  bool class_scores = false;  // top-k agreement is meaningful for it
};

struct ModelSource {
  std::string name;
  std::string directory;      // absolute; "" for a bare file
  std::string manifest_path;  // absolute; "" for a bare file
  // Absolute artifact paths; "" when the model has no such artifact.
  std::string onnx_path;
  std::string torchscript_path;
  std::optional<PythonModelSpec> python;
  std::vector<InputSpec> inputs;  // may be empty for a bare file
  std::vector<OutputSpec> outputs;
  // Reference data by tensor name: absolute .npy paths.
  std::map<std::string, std::string> reference_inputs;
  std::map<std::string, std::string> reference_outputs;

  // `path`: a directory with model.json, a manifest .json, an .onnx file, or a
  // TorchScript file (.pt/.pth/.torchscript). Throws Error(kIo/kInvalidModel)
  // naming the file and the key at fault.
  static ModelSource resolve(const std::string& path);

  // The artifact a backend needs; throws Error(kUnsupported) naming the model,
  // the backend and the missing manifest key.
  const std::string& require_onnx(const std::string& backend) const;
  const std::string& require_torchscript(const std::string& backend) const;

  // Serialized with absolute paths (what worker processes receive).
  nlohmann::json to_json() const;
  static ModelSource from_json(const nlohmann::json& json);
};

}  // namespace inferlab::backends
