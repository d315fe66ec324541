// Every option maps onto the ORT call a user would make; ORT's own defaults
// (thread spinning, the CPU memory arena, memory patterns) are left on, so
// the backend runs the engine as its users tune it, not handicapped.
#include "inferlab/backends/onnxruntime/session_config.h"

#include <filesystem>
#include <optional>
#include <thread>

#include "inferlab/core/error.h"

namespace inferlab::backends::ort {

namespace {

constexpr const char* kCpuProvider = "CPUExecutionProvider";
constexpr const char* kCudaProvider = "CUDAExecutionProvider";

struct ProviderChoice {
  std::string name = "cpu";  // "cpu" or "cuda"
  int device_id = 0;
};

std::string known_settings_text() {
  std::string text;
  for (const auto& [key, meaning] : known_settings()) text += (text.empty() ? "" : ", ") + key;
  return text;
}

void check_setting_names(const BackendOptions& options) {
  for (const auto& [key, value] : options.settings) {
    if (known_settings().count(key) == 0) {
      fail(ErrorCode::kInvalidArgument, "onnxruntime: unknown setting '{}' (known: {})", key,
           known_settings_text());
    }
  }
}

std::optional<std::string> setting(const BackendOptions& options, const std::string& key) {
  auto it = options.settings.find(key);
  if (it == options.settings.end()) return std::nullopt;
  return it->second;
}

ProviderChoice provider_from_device(const std::string& device) {
  if (device == "cpu") return {"cpu", 0};
  if (device == "cuda") return {"cuda", 0};
  if (device.rfind("cuda:", 0) == 0) {
    const std::string index = device.substr(5);
    if (!index.empty() && index.find_first_not_of("0123456789") == std::string::npos &&
        index.size() < 6) {
      return {"cuda", std::stoi(index)};
    }
  }
  fail(ErrorCode::kInvalidArgument, "onnxruntime: unknown device '{}' (cpu, cuda, cuda:N)", device);
}

ProviderChoice choose_provider(const BackendOptions& options, const OrtLibrary& library) {
  ProviderChoice choice = provider_from_device(options.device);
  if (auto provider = setting(options, "execution_provider")) {
    if (*provider != "cpu" && *provider != "cuda") {
      fail(ErrorCode::kInvalidArgument,
           "onnxruntime: setting execution_provider='{}' is not a provider name (cpu, cuda)",
           *provider);
    }
    if (*provider == "cpu" && choice.name == "cuda") {
      fail(ErrorCode::kInvalidArgument,
           "onnxruntime: device '{}' contradicts setting execution_provider=cpu", options.device);
    }
    choice.name = *provider;
  }
  if (choice.name == "cuda" && !library.has_provider(kCudaProvider)) {
    std::string available;
    for (const std::string& name : library.providers()) {
      available += (available.empty() ? "" : ", ") + name;
    }
    fail(ErrorCode::kUnsupported,
         "onnxruntime: execution provider 'cuda' is not available: {} provides only {}",
         library.path(), available);
  }
  return choice;
}

GraphOptimizationLevel optimization_level(int opt_level) {
  switch (opt_level) {
    case 0:
      return ORT_DISABLE_ALL;
    case 1:
      return ORT_ENABLE_BASIC;
    case 2:
      return ORT_ENABLE_EXTENDED;
    default:
      return ORT_ENABLE_ALL;
  }
}

const char* optimization_level_name(int opt_level) {
  static constexpr const char* kNames[] = {"ORT_DISABLE_ALL", "ORT_ENABLE_BASIC",
                                           "ORT_ENABLE_EXTENDED", "ORT_ENABLE_ALL"};
  return kNames[opt_level < 0 || opt_level > 3 ? 3 : opt_level];
}

int intra_op_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

std::string spinning_setting(const BackendOptions& options) {
  auto value = setting(options, "allow_spinning");
  if (!value) return "";
  if (*value == "1" || *value == "true") return "1";
  if (*value == "0" || *value == "false") return "0";
  fail(ErrorCode::kInvalidArgument,
       "onnxruntime: setting allow_spinning='{}' must be 0, 1, true or false", *value);
}

// "flush" or "keep" (ORT's default).
std::string denormals_setting(const BackendOptions& options) {
  const std::string value = setting(options, "denormals").value_or("keep");
  if (value != "flush" && value != "keep") {
    fail(ErrorCode::kInvalidArgument, "onnxruntime: setting denormals='{}' must be flush or keep",
         value);
  }
  return value;
}

// ORT only says "open file failed" after optimizing; say which setting at once.
void check_optimized_model_path(const std::string& path) {
  if (path.empty()) return;
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (!directory.empty() && !std::filesystem::is_directory(directory)) {
    fail(ErrorCode::kIo,
         "onnxruntime: setting save_optimized_model={}: directory {} does not exist", path,
         directory.string());
  }
}

}  // namespace

const std::map<std::string, std::string>& known_settings() {
  static const std::map<std::string, std::string> kSettings = {
      {"save_optimized_model", "PATH: write the optimized graph there (SetOptimizedModelFilePath)"},
      {"execution_provider", "cpu|cuda: the execution provider (device cuda also selects it)"},
      {"allow_spinning", "0|1: intra/inter-op threads spin before blocking (ORT default 1)"},
      {"denormals",
       "flush|keep: flush denormal floats to zero (session.set_denormal_as_zero; ORT default "
       "keep)"},
  };
  return kSettings;
}

SessionConfig make_session_config(const BackendOptions& options, const OrtLibrary& library,
                                  const std::map<std::string, int64_t>& free_dims,
                                  const std::string& external_data_dir) {
  check_setting_names(options);
  const ProviderChoice provider = choose_provider(options, library);
  const std::string spinning = spinning_setting(options);
  const std::string denormals = denormals_setting(options);
  const int threads = intra_op_threads(options.threads);

  SessionConfig config;
  Ort::SessionOptions& session = config.session_options;
  session.SetIntraOpNumThreads(threads);
  if (options.inter_op_threads > 0) session.SetInterOpNumThreads(options.inter_op_threads);
  session.SetExecutionMode(options.parallel_execution ? ORT_PARALLEL : ORT_SEQUENTIAL);
  session.SetGraphOptimizationLevel(optimization_level(options.opt_level));
  for (const auto& [symbol, size] : free_dims) {
    session.AddFreeDimensionOverrideByName(symbol.c_str(), size);
  }
  if (denormals == "flush") session.AddConfigEntry(kOrtSessionOptionsConfigSetDenormalAsZero, "1");
  if (!spinning.empty()) {
    session.AddConfigEntry(kOrtSessionOptionsConfigAllowIntraOpSpinning, spinning.c_str());
    session.AddConfigEntry(kOrtSessionOptionsConfigAllowInterOpSpinning, spinning.c_str());
  }
  if (!external_data_dir.empty()) {
    session.AddConfigEntry(kOrtSessionOptionsModelExternalInitializersFileFolderPath,
                           external_data_dir.c_str());
  }
  const std::string optimized_path = setting(options, "save_optimized_model").value_or("");
  check_optimized_model_path(optimized_path);
  if (!optimized_path.empty()) session.SetOptimizedModelFilePath(optimized_path.c_str());
  if (provider.name == "cuda") {
    OrtCUDAProviderOptions cuda;
    cuda.device_id = provider.device_id;
    session.AppendExecutionProvider_CUDA(cuda);
  }

  nlohmann::json& json = config.configuration;
  json["library"] = library.path();
  json["version"] = library.version();
  json["intra_op_threads"] = threads;
  json["inter_op_threads"] = options.inter_op_threads;  // 0: ORT's default
  json["execution_mode"] = options.parallel_execution ? "ORT_PARALLEL" : "ORT_SEQUENTIAL";
  json["opt_level"] = options.opt_level;
  json["graph_optimization_level"] = optimization_level_name(options.opt_level);
  json["execution_provider"] = provider.name == "cuda" ? kCudaProvider : kCpuProvider;
  if (provider.name == "cuda") json["device_id"] = provider.device_id;
  json["allow_spinning"] = spinning.empty() ? "ORT default" : spinning;
  json["denormals"] = denormals;
  json["free_dimension_overrides"] = free_dims;
  if (!optimized_path.empty()) json["save_optimized_model"] = optimized_path;
  return config;
}

}  // namespace inferlab::backends::ort
