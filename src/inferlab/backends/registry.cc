// Backend lookup and loading. Plugins are opened with RTLD_LOCAL so two
// engines' symbols never mix, and are never closed: engines keep thread
// pools and static state that do not survive being unloaded.
#include "inferlab/backends/registry.h"

#include <dlfcn.h>

#include <chrono>
#include <filesystem>

#include "inferlab/backends/native_backend.h"
#include "inferlab/backends/plugin_abi.h"
#include "inferlab/backends/worker/worker_backend.h"

namespace inferlab::backends {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNative = "native";
constexpr const char* kOnnxRuntime = "onnxruntime";
constexpr const char* kLibTorch = "libtorch";
constexpr const char* kPython = "python";
constexpr const char* kHostProgram = "inferlab-backend-host";
constexpr const char* kPythonWorker = "inferlab_worker";

// PyTorch reads its BLAS and ISA settings when it loads: only a fresh
// process started with them gets the engine its users would tune.
bool needs_torch_environment(const std::string& name) {
  return name == kLibTorch || name == kPython;
}

class ProbedBackend final : public Backend {
 public:
  ProbedBackend(std::unique_ptr<Backend> backend, double startup_ms, std::string library)
      : backend_(std::move(backend)), startup_ms_(startup_ms), library_(std::move(library)) {}
  std::string name() const override { return backend_->name(); }
  BackendInfo info() const override {
    BackendInfo info = backend_->info();
    info.startup_ms = startup_ms_;
    if (!library_.empty()) info.configuration["plugin"] = library_;
    return info;
  }
  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override {
    return backend_->open(source, options);
  }

 private:
  std::unique_ptr<Backend> backend_;
  double startup_ms_;
  std::string library_;
};

void check_known(const std::string& name) {
  for (const std::string& known : BackendRegistry::known_names())
    if (known == name) return;
  fail(ErrorCode::kNotFound, "unknown backend '{}' (known: native, onnxruntime, libtorch, python)",
       name);
}

}  // namespace

std::string plugin_path(const std::string& plugin_dir, const std::string& name) {
  return (fs::path(plugin_dir) / ("libinferlab_backend_" + name + ".so")).string();
}

BackendRegistry::BackendRegistry(BackendEnvironment environment)
    : environment_(std::move(environment)) {}

BackendRegistry::~BackendRegistry() = default;

const std::vector<std::string>& BackendRegistry::known_names() {
  static const std::vector<std::string> names = {kNative, kOnnxRuntime, kLibTorch, kPython};
  return names;
}

void BackendRegistry::add_build(const std::string& label, const std::string& engine,
                                const std::string& plugin_dir) {
  check_known(engine);
  for (const std::string& known : known_names())
    if (known == label)
      fail(ErrorCode::kInvalidArgument, "build label '{}' is the name of a backend", label);
  builds_[label] = Build{engine, plugin_dir};
  loaded_.erase(label + "@worker");
}

std::string BackendRegistry::engine_of(const std::string& name) const {
  auto build = builds_.find(name);
  return build == builds_.end() ? name : build->second.engine;
}

std::shared_ptr<Backend> BackendRegistry::get(const std::string& name, Placement placement) {
  if (auto build = builds_.find(name); build != builds_.end()) {
    if (placement == Placement::kInProcess)
      fail(ErrorCode::kInvalidArgument, "build '{}' runs only in a worker process", name);
    std::shared_ptr<Backend>& backend = loaded_[name + "@worker"];
    if (!backend) backend = make_worker(name, build->second.engine, build->second.plugin_dir);
    return backend;
  }
  check_known(name);
  if (placement == Placement::kInProcess && name == kPython)
    fail(ErrorCode::kInvalidArgument, "backend '{}' runs only in a worker process", name);
  const bool in_process = placement == Placement::kInProcess ||
                          (placement == Placement::kDefault && !needs_torch_environment(name));
  const std::string key = name + (in_process ? "" : "@worker");
  if (auto it = loaded_.find(key); it != loaded_.end()) return it->second;
  std::shared_ptr<Backend> backend;
  if (!in_process)
    backend = make_worker(name, name, environment_.plugin_dir);
  else if (name == kNative)
    backend = make_native_backend();
  else
    backend = load_plugin(name);
  loaded_[key] = backend;
  return backend;
}

std::shared_ptr<Backend> BackendRegistry::load_plugin(const std::string& name) {
  const std::string path = plugin_path(environment_.plugin_dir, name);
  if (!fs::exists(path)) {
    fail(ErrorCode::kUnavailable,
         "{}: plugin {} is not there (was InferLab built with this engine's library present?)",
         name, path);
  }
  const auto start = std::chrono::steady_clock::now();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    fail(ErrorCode::kUnavailable, "{}: cannot load {}: {}", name, path, dlerror());
  auto abi_version = reinterpret_cast<AbiVersionFunction>(dlsym(handle, kAbiVersionSymbol));
  auto create = reinterpret_cast<CreateBackendFunction>(dlsym(handle, kCreateBackendSymbol));
  if (abi_version == nullptr || create == nullptr)
    fail(ErrorCode::kUnavailable, "{}: {} is not an InferLab backend plugin", name, path);
  if (abi_version() != kBackendAbiVersion) {
    fail(ErrorCode::kUnavailable, "{}: {} was built for plugin ABI {}, this InferLab needs {}",
         name, path, abi_version(), kBackendAbiVersion);
  }
  std::unique_ptr<Backend> backend(create(environment_));
  const double startup_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return std::make_shared<ProbedBackend>(std::move(backend), startup_ms, path);
}

std::shared_ptr<Backend> BackendRegistry::make_worker(const std::string& label,
                                                      const std::string& engine,
                                                      const std::string& plugin_dir) {
  BackendEnvironment environment = environment_;
  environment.plugin_dir = plugin_dir;
  const std::string& name = engine;
  if (name == kPython) {
    const std::string script = (fs::path(environment.plugin_dir) / kPythonWorker).string();
    return make_worker_backend(label, [environment, script](const BackendOptions& options) {
      if (!fs::exists(script))
        fail(ErrorCode::kUnavailable, "python: worker script {} is not there", script);
      return WorkerLaunch{kPython,
                          {environment.python_executable, script},
                          environment.torch_worker_variables(options.threads),
                          environment.worker_start_timeout_s};
    });
  }
  const std::string host = (fs::path(environment.plugin_dir) / kHostProgram).string();
  return make_worker_backend(
      label, [environment, host, name, label](const BackendOptions& options) {
        if (!fs::exists(host)) fail(ErrorCode::kUnavailable, "{}: {} is not there", label, host);
        std::map<std::string, std::string> variables;
        if (needs_torch_environment(name))
          variables = environment.torch_worker_variables(options.threads);
        variables["INFERLAB_PLUGIN_DIR"] = environment.plugin_dir;
        variables["INFERLAB_ONNXRUNTIME_LIBRARY"] = environment.onnxruntime_library;
        return WorkerLaunch{
            label, {host, "--backend", name}, variables, environment.worker_start_timeout_s};
      });
}

BackendInfo BackendRegistry::probe(const std::string& name) {
  try {
    return get(name)->info();
  } catch (const Error& error) {
    BackendInfo info;
    info.name = name;
    info.available = false;
    info.unavailable_reason = error.what();
    return info;
  }
}

std::vector<BackendInfo> BackendRegistry::probe_all() {
  std::vector<BackendInfo> infos;
  for (const std::string& name : known_names()) infos.push_back(probe(name));
  return infos;
}

}  // namespace inferlab::backends
