// BackendRegistry: finds backends by name and loads them only when asked.
// `native` is built in; `onnxruntime` and `libtorch` are shared objects in
// the plugin directory, opened with dlopen (so inferlab itself links neither
// engine, and a missing engine makes only its backend unavailable); `python`
// is a worker process. PyTorch-based backends (libtorch, python) always run
// in a worker process started with their tuned environment
// (BackendEnvironment::torch_worker_variables).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/environment.h"

namespace inferlab::backends {

enum class Placement {
  kDefault,       // in process where that is safe, else a worker
  kInProcess,     // refused for backends that must run in a worker
  kChildProcess,  // every backend in its own worker (benchmarks)
};

class BackendRegistry {
 public:
  explicit BackendRegistry(BackendEnvironment environment);
  ~BackendRegistry();
  BackendRegistry(const BackendRegistry&) = delete;
  BackendRegistry& operator=(const BackendRegistry&) = delete;

  // native, onnxruntime, libtorch, python.
  static const std::vector<std::string>& known_names();

  // The backend, loaded on first use and cached. Throws Error(kUnsupported)
  // with the reason when it is unavailable, Error(kInvalidArgument) for an
  // unknown name (listing the known ones).
  std::shared_ptr<Backend> get(const std::string& name, Placement placement = Placement::kDefault);

  // Loads and describes a backend; never throws (the reason goes in the info).
  BackendInfo probe(const std::string& name);
  std::vector<BackendInfo> probe_all();

  // Registers `label` as `engine` from another InferLab build: its worker
  // host and plugins come from `plugin_dir` (`gate --interleave` benches two
  // builds side by side). A build always runs in a worker process.
  void add_build(const std::string& label, const std::string& engine,
                 const std::string& plugin_dir);
  // The engine behind `name`: the name itself, or the engine of a build label.
  std::string engine_of(const std::string& name) const;

  const BackendEnvironment& environment() const { return environment_; }

 private:
  struct Build {
    std::string engine;
    std::string plugin_dir;
  };

  std::shared_ptr<Backend> load_plugin(const std::string& name);
  std::shared_ptr<Backend> make_worker(const std::string& label, const std::string& engine,
                                       const std::string& plugin_dir);

  BackendEnvironment environment_;
  std::map<std::string, std::shared_ptr<Backend>> loaded_;
  std::map<std::string, Build> builds_;
};

// Path of the plugin for `name` in `plugin_dir`.
std::string plugin_path(const std::string& plugin_dir, const std::string& name);

}  // namespace inferlab::backends
