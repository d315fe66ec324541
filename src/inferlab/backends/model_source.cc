// Reads model directories and their manifest (docs/model-format.md). The
// manifest is strict: unknown keys, paths leaving the directory and missing
// files are errors naming the manifest and the key, because a silently
// ignored artifact would make "this model on every engine" a lie.
#include "inferlab/backends/model_source.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/tensor_wire.h"
#include "inferlab/core/error.h"

namespace inferlab::backends {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestName = "model.json";
constexpr int kManifestVersion = 1;

class ManifestReader {
 public:
  explicit ManifestReader(std::string manifest_path) : path_(std::move(manifest_path)) {}

  [[noreturn]] void error(const std::string& key, const std::string& problem) const {
    fail(ErrorCode::kInvalidModel, "model manifest {}: {}: {}", path_, key, problem);
  }

  void check_keys(const nlohmann::json& object, const std::string& where,
                  const std::set<std::string>& allowed) const {
    if (!object.is_object()) error(where, "must be an object");
    for (const auto& item : object.items()) {
      if (allowed.count(item.key()) == 0) {
        std::string known;
        for (const std::string& key : allowed) known += (known.empty() ? "" : ", ") + key;
        error(where.empty() ? item.key() : where + "." + item.key(),
              "unknown key (known: " + known + ")");
      }
    }
  }

  // An existing file inside the model directory, as an absolute path.
  std::string artifact(const nlohmann::json& value, const std::string& key) const {
    if (!value.is_string() || value.get<std::string>().empty()) error(key, "must be a file name");
    const fs::path directory = fs::weakly_canonical(fs::path(path_).parent_path());
    const fs::path file = fs::weakly_canonical(directory / value.get<std::string>());
    const std::string relative = file.lexically_relative(directory).string();
    if (relative.empty() || relative.rfind("..", 0) == 0) {
      error(key, "'" + value.get<std::string>() + "' is outside the model directory");
    }
    if (!fs::exists(file)) error(key, "file '" + file.string() + "' does not exist");
    return file.string();
  }

  model::ValueInfo value_info(const nlohmann::json& json, const std::string& where) const {
    model::ValueInfo info;
    if (!json.contains("name") || !json.at("name").is_string()) error(where, "needs a name");
    info.name = json.at("name").get<std::string>();
    try {
      info.dtype = parse_wire_dtype(json.value("dtype", "float32"));
    } catch (const Error& parse_error) {
      error(where + ".dtype", parse_error.what());
    }
    if (json.contains("shape")) {
      if (!json.at("shape").is_array()) error(where + ".shape", "must be a list");
      info.has_shape = true;
      for (const nlohmann::json& dim : json.at("shape")) {
        if (dim.is_number_integer() && dim.get<int64_t>() >= 0)
          info.dims.push_back(model::Dim::fixed(dim.get<int64_t>()));
        else if (dim.is_string() && !dim.get<std::string>().empty())
          info.dims.push_back(model::Dim::symbolic(dim.get<std::string>()));
        else
          error(where + ".shape", "dims are sizes >= 0 or symbolic names");
      }
    }
    return info;
  }

  InputSpec input(const nlohmann::json& json, size_t index) const {
    const std::string where = "inputs[" + std::to_string(index) + "]";
    check_keys(json, where, {"name", "dtype", "shape", "range"});
    InputSpec spec{value_info(json, where), std::nullopt};
    if (json.contains("range")) {
      const nlohmann::json& range = json.at("range");
      if (!range.is_array() || range.size() != 2 || !range[0].is_number() ||
          !range[1].is_number() || range[0].get<double>() >= range[1].get<double>()) {
        error(where + ".range", "must be [low, high) with low < high");
      }
      spec.range = std::make_pair(range[0].get<double>(), range[1].get<double>());
    }
    return spec;
  }

  OutputSpec output(const nlohmann::json& json, size_t index) const {
    const std::string where = "outputs[" + std::to_string(index) + "]";
    check_keys(json, where, {"name", "dtype", "shape", "class_scores"});
    return OutputSpec{value_info(json, where), json.value("class_scores", false)};
  }

  PythonModelSpec python(const nlohmann::json& json) const {
    check_keys(json, "artifacts.python",
               {"factory", "module_path", "state_dict", "saved_module", "kwargs"});
    PythonModelSpec spec;
    const fs::path directory = fs::path(path_).parent_path();
    if (json.contains("saved_module"))
      spec.saved_module = artifact(json.at("saved_module"), "artifacts.python.saved_module");
    spec.factory = json.value("factory", "");
    if (spec.factory.empty() == spec.saved_module.empty())
      error("artifacts.python", "needs exactly one of 'factory' and 'saved_module'");
    if (!spec.factory.empty() && spec.factory.find(':') == std::string::npos)
      error("artifacts.python.factory", "must be 'module:function'");
    spec.module_path = fs::weakly_canonical(directory / json.value("module_path", ".")).string();
    if (json.contains("state_dict"))
      spec.state_dict = artifact(json.at("state_dict"), "artifacts.python.state_dict");
    spec.kwargs = json.value("kwargs", nlohmann::json::object());
    return spec;
  }

 private:
  std::string path_;
};

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) fail(ErrorCode::kIo, "cannot open model manifest {}", path);
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& parse_error) {
    fail(ErrorCode::kInvalidModel, "model manifest {} is not valid JSON: {}", path,
         parse_error.what());
  }
}

ModelSource from_manifest(const std::string& manifest_path) {
  const ManifestReader reader(manifest_path);
  const nlohmann::json json = read_json_file(manifest_path);
  reader.check_keys(
      json, "",
      {"format", "version", "name", "description", "artifacts", "inputs", "outputs", "reference"});
  if (json.value("format", "") != "inferlab-model")
    reader.error("format", "must be \"inferlab-model\"");
  if (json.value("version", 0) != kManifestVersion)
    reader.error("version", "must be " + std::to_string(kManifestVersion));
  ModelSource source;
  source.manifest_path = manifest_path;
  source.directory = fs::path(manifest_path).parent_path().string();
  source.name = json.value("name", fs::path(source.directory).filename().string());
  const nlohmann::json artifacts = json.value("artifacts", nlohmann::json::object());
  reader.check_keys(artifacts, "artifacts", {"onnx", "torchscript", "python"});
  if (artifacts.empty()) reader.error("artifacts", "names no artifact");
  if (artifacts.contains("onnx"))
    source.onnx_path = reader.artifact(artifacts.at("onnx"), "artifacts.onnx");
  if (artifacts.contains("torchscript"))
    source.torchscript_path = reader.artifact(artifacts.at("torchscript"), "artifacts.torchscript");
  if (artifacts.contains("python")) source.python = reader.python(artifacts.at("python"));
  const nlohmann::json inputs = json.value("inputs", nlohmann::json::array());
  for (size_t i = 0; i < inputs.size(); ++i) source.inputs.push_back(reader.input(inputs[i], i));
  const nlohmann::json outputs = json.value("outputs", nlohmann::json::array());
  for (size_t i = 0; i < outputs.size(); ++i)
    source.outputs.push_back(reader.output(outputs[i], i));
  const nlohmann::json reference = json.value("reference", nlohmann::json::object());
  reader.check_keys(reference, "reference", {"inputs", "outputs"});
  const nlohmann::json reference_inputs = reference.value("inputs", nlohmann::json::object());
  for (const auto& [name, file] : reference_inputs.items())
    source.reference_inputs[name] = reader.artifact(file, "reference.inputs." + name);
  const nlohmann::json reference_outputs = reference.value("outputs", nlohmann::json::object());
  for (const auto& [name, file] : reference_outputs.items())
    source.reference_outputs[name] = reader.artifact(file, "reference.outputs." + name);
  return source;
}

bool has_extension(const fs::path& path, std::initializer_list<const char*> extensions) {
  for (const char* extension : extensions)
    if (path.extension() == extension) return true;
  return false;
}

}  // namespace

ModelSource ModelSource::resolve(const std::string& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error || !fs::exists(absolute)) fail(ErrorCode::kNotFound, "model '{}' does not exist", path);
  if (fs::is_directory(absolute)) {
    const fs::path manifest = absolute / kManifestName;
    if (!fs::exists(manifest)) {
      fail(ErrorCode::kInvalidModel, "model directory {} has no {} (see docs/model-format.md)",
           path, kManifestName);
    }
    return from_manifest(fs::weakly_canonical(manifest).string());
  }
  if (absolute.extension() == ".json")
    return from_manifest(fs::weakly_canonical(absolute).string());
  ModelSource source;
  source.name = absolute.stem().string();
  if (has_extension(absolute, {".pt", ".pth", ".torchscript"}))
    source.torchscript_path = absolute.string();
  else
    source.onnx_path = absolute.string();
  return source;
}

const std::string& ModelSource::require_onnx(const std::string& backend) const {
  if (onnx_path.empty()) {
    fail(ErrorCode::kUnsupported,
         "{}: model '{}' has no ONNX artifact (manifest key artifacts.onnx)", backend, name);
  }
  return onnx_path;
}

const std::string& ModelSource::require_torchscript(const std::string& backend) const {
  if (torchscript_path.empty()) {
    fail(ErrorCode::kUnsupported,
         "{}: model '{}' has no TorchScript artifact (manifest key artifacts.torchscript)", backend,
         name);
  }
  return torchscript_path;
}

nlohmann::json ModelSource::to_json() const {
  nlohmann::json json = {{"name", name},
                         {"directory", directory},
                         {"manifest_path", manifest_path},
                         {"onnx_path", onnx_path},
                         {"torchscript_path", torchscript_path},
                         {"python", nullptr},
                         {"inputs", nlohmann::json::array()},
                         {"outputs", nlohmann::json::array()},
                         {"reference_inputs", reference_inputs},
                         {"reference_outputs", reference_outputs}};
  if (python) {
    json["python"] = {{"factory", python->factory},
                      {"module_path", python->module_path},
                      {"state_dict", python->state_dict},
                      {"saved_module", python->saved_module},
                      {"kwargs", python->kwargs}};
  }
  for (const InputSpec& input : inputs) {
    nlohmann::json entry = value_info_json(input.info);
    if (input.range) entry["range"] = {input.range->first, input.range->second};
    json["inputs"].push_back(entry);
  }
  for (const OutputSpec& output : outputs) {
    nlohmann::json entry = value_info_json(output.info);
    entry["class_scores"] = output.class_scores;
    json["outputs"].push_back(entry);
  }
  return json;
}

ModelSource ModelSource::from_json(const nlohmann::json& json) {
  ModelSource source;
  source.name = json.value("name", "");
  source.directory = json.value("directory", "");
  source.manifest_path = json.value("manifest_path", "");
  source.onnx_path = json.value("onnx_path", "");
  source.torchscript_path = json.value("torchscript_path", "");
  if (json.contains("python") && json.at("python").is_object()) {
    const nlohmann::json& python = json.at("python");
    source.python =
        PythonModelSpec{python.value("factory", ""), python.value("module_path", ""),
                        python.value("state_dict", ""), python.value("saved_module", ""),
                        python.value("kwargs", nlohmann::json::object())};
  }
  for (const nlohmann::json& input : json.value("inputs", nlohmann::json::array())) {
    InputSpec spec{value_info_from_json(input), std::nullopt};
    if (input.contains("range"))
      spec.range = std::make_pair(input["range"][0].get<double>(), input["range"][1].get<double>());
    source.inputs.push_back(spec);
  }
  for (const nlohmann::json& output : json.value("outputs", nlohmann::json::array()))
    source.outputs.push_back({value_info_from_json(output), output.value("class_scores", false)});
  source.reference_inputs = json.value("reference_inputs", std::map<std::string, std::string>{});
  source.reference_outputs = json.value("reference_outputs", std::map<std::string, std::string>{});
  return source;
}

}  // namespace inferlab::backends
