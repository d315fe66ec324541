// The server's models: which versions of which repository models are
// loaded, loading, unloading or failed, and the rules for changing that
// (Triton's model control modes). Loading a model again (a reload) opens
// the new versions beside the old ones and swaps them in; a version taken
// out stops taking requests and is destroyed only after every request it
// accepted has been answered.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "inferlab/serve/manager/served_model.h"

namespace inferlab::serve {

enum class ModelControlMode { kNone, kPoll, kExplicit };

struct ModelState {
  std::string name;
  std::optional<int64_t> version;  // absent: never loaded
  std::string state;               // READY, UNAVAILABLE, LOADING, UNLOADING; empty: never loaded
  std::string reason;              // why UNAVAILABLE ("unloaded", a load error)
};

class ModelManager {
 public:
  ModelManager(std::filesystem::path repository, ModelControlMode mode, LoadDefaults defaults,
               backends::BackendRegistry& registry, ServerLog& log);
  // Unloads every model (each answering what it accepted).
  ~ModelManager();
  ModelManager(const ModelManager&) = delete;
  ModelManager& operator=(const ModelManager&) = delete;

  ModelControlMode mode() const { return mode_; }
  const std::filesystem::path& repository() const { return repository_; }

  // Loads `name` (again): the versions its policy selects replace those
  // loaded, once all of them are open. Throws the load's Error, naming the
  // model; the versions already serving stay.
  void load(const std::string& name);
  // Takes every version of `name` out; returns once their accepted requests
  // are answered. Throws kNotFound for a model that is not loaded.
  void unload(const std::string& name);
  // Loads every model of the repository; returns the failures (name, error)
  // instead of stopping at the first.
  std::vector<std::pair<std::string, std::string>> load_all();
  // Poll mode: loads models that appeared or changed on disk, unloads
  // those that disappeared.
  void poll();

  // Runs `submit` on the version to use, under a lock that keeps it from
  // being taken out meanwhile: `version` 0 is the latest ready version.
  // Throws kNotFound (no such model or version loaded) or kUnavailable
  // (loaded, not ready).
  template <typename Submit>
  auto with_version(const std::string& name, int64_t version, Submit&& submit) const {
    std::shared_lock lock(models_mutex_);
    return submit(find_locked(name, version));
  }
  std::shared_ptr<ServedModel> find(const std::string& name, int64_t version) const;
  // Loaded versions of `name` (ascending), or of every model when empty.
  std::vector<std::shared_ptr<ServedModel>> loaded(const std::string& name = {}) const;
  std::vector<ModelState> index(bool ready_only) const;
  // Every model that was asked to load is loaded, and each loaded version
  // is ready (a worker being restarted is not).
  bool all_ready() const;
  // Stop taking requests on every version (a drain); accepted ones still run.
  void retire_all();

 private:
  struct Entry {
    std::map<int64_t, std::shared_ptr<ServedModel>> versions;
    std::string state;  // "" never loaded, READY, UNAVAILABLE, LOADING, UNLOADING
    std::string reason;
    std::string fingerprint;  // the files on disk when loaded (poll mode)
  };
  const std::shared_ptr<ServedModel>& find_locked(const std::string& name, int64_t version) const;
  void set_state(const std::string& name, const std::string& state, const std::string& reason);
  // Destroys retired versions once no request holds them (in this thread).
  static void destroy(std::vector<std::shared_ptr<ServedModel>> retired);

  std::filesystem::path repository_;
  ModelControlMode mode_;
  LoadDefaults defaults_;
  backends::BackendRegistry& registry_;
  ServerLog& log_;
  std::mutex control_mutex_;  // one load, unload or poll at a time
  mutable std::shared_mutex models_mutex_;
  std::map<std::string, Entry> models_;
};

// The files under a model's folder (names, sizes, modification times), so
// a poll sees a model that changed.
std::string model_fingerprint(const std::filesystem::path& model_dir);

}  // namespace inferlab::serve
