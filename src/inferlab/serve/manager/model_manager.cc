#include "inferlab/serve/manager/model_manager.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include <fmt/format.h>

namespace inferlab::serve {

namespace fs = std::filesystem;

std::string model_fingerprint(const fs::path& model_dir) {
  std::vector<std::string> lines;
  std::error_code error;
  for (fs::recursive_directory_iterator it(model_dir, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const auto time = fs::last_write_time(it->path(), error).time_since_epoch().count();
    lines.push_back(fmt::format("{} {} {}", it->path().lexically_relative(model_dir).string(),
                                it->file_size(error), time));
  }
  std::sort(lines.begin(), lines.end());
  return fmt::format("{}", fmt::join(lines, "\n"));
}

ModelManager::ModelManager(fs::path repository, ModelControlMode mode, LoadDefaults defaults,
                           backends::BackendRegistry& registry, ServerLog& log)
    : repository_(std::move(repository)),
      mode_(mode),
      defaults_(defaults),
      registry_(registry),
      log_(log) {}

ModelManager::~ModelManager() {
  std::vector<std::shared_ptr<ServedModel>> retired;
  {
    std::unique_lock lock(models_mutex_);
    for (auto& [name, entry] : models_) {
      for (auto& [version, served] : entry.versions) {
        served->retire();
        retired.push_back(std::move(served));
      }
    }
    models_.clear();
  }
  destroy(std::move(retired));
}

void ModelManager::destroy(std::vector<std::shared_ptr<ServedModel>> retired) {
  for (std::shared_ptr<ServedModel>& served : retired) {
    // A request thread may still hold it for a moment (its submit); the
    // drain must happen here, not on that thread.
    while (served.use_count() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    served.reset();
  }
}

void ModelManager::set_state(const std::string& name, const std::string& state,
                             const std::string& reason) {
  std::unique_lock lock(models_mutex_);
  Entry& entry = models_[name];
  entry.state = state;
  entry.reason = reason;
}

void ModelManager::load(const std::string& name) {
  std::lock_guard control(control_mutex_);
  check_model_name(name);
  set_state(name, "LOADING", "");
  const auto start = std::chrono::steady_clock::now();
  std::map<int64_t, std::shared_ptr<ServedModel>> fresh;
  std::string fingerprint;
  try {
    fingerprint = model_fingerprint(repository_ / name);
    const RepositoryModel model = read_repository_model(repository_, name);
    for (const ModelVersion& version : model.versions) {
      fresh[version.version] = ServedModel::load(registry_, model, version, defaults_, log_);
    }
  } catch (const Error& error) {
    std::unique_lock lock(models_mutex_);
    Entry& entry = models_[name];
    // A failed reload leaves the versions serving as they were.
    entry.state = entry.versions.empty() ? "UNAVAILABLE" : "READY";
    entry.reason = error.what();
    throw;
  }
  std::vector<std::shared_ptr<ServedModel>> retired;
  std::vector<int64_t> versions;
  {
    std::unique_lock lock(models_mutex_);
    Entry& entry = models_[name];
    for (auto& [version, served] : entry.versions) {
      served->retire();
      retired.push_back(std::move(served));
    }
    entry.versions = std::move(fresh);
    entry.state = "READY";
    entry.reason.clear();
    entry.fingerprint = std::move(fingerprint);
    for (const auto& [version, served] : entry.versions) versions.push_back(version);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  log_.info(fmt::format("loaded model '{}' version {} ({:.0f} ms){}", name,
                        fmt::join(versions, ", "), ms,
                        retired.empty() ? "" : "; replacing the versions loaded before"));
  destroy(std::move(retired));
}

void ModelManager::unload(const std::string& name) {
  std::lock_guard control(control_mutex_);
  check_model_name(name);
  std::vector<std::shared_ptr<ServedModel>> retired;
  {
    std::unique_lock lock(models_mutex_);
    auto found = models_.find(name);
    if (found == models_.end() || found->second.state.empty()) {
      fail(ErrorCode::kNotFound, "model '{}' is not loaded", name);
    }
    for (auto& [version, served] : found->second.versions) {
      served->retire();
      retired.push_back(std::move(served));
    }
    found->second.versions.clear();
    found->second.state = "UNLOADING";
  }
  destroy(std::move(retired));
  set_state(name, "UNAVAILABLE", "unloaded");
  log_.info(fmt::format("unloaded model '{}'", name));
}

std::vector<std::pair<std::string, std::string>> ModelManager::load_all() {
  std::vector<std::pair<std::string, std::string>> failures;
  for (const std::string& name : list_models(repository_)) {
    try {
      load(name);
    } catch (const Error& error) {
      log_.error(fmt::format("cannot load model '{}': {}", name, error.what()));
      failures.emplace_back(name, error.what());
    }
  }
  return failures;
}

void ModelManager::poll() {
  const std::vector<std::string> on_disk = list_models(repository_);
  std::vector<std::string> gone;
  std::vector<std::string> changed;
  {
    std::shared_lock lock(models_mutex_);
    for (const auto& [name, entry] : models_) {
      const bool loaded = !entry.versions.empty() || entry.state == "UNAVAILABLE";
      if (loaded && !std::binary_search(on_disk.begin(), on_disk.end(), name)) gone.push_back(name);
    }
    for (const std::string& name : on_disk) {
      auto found = models_.find(name);
      if (found == models_.end() ||
          found->second.fingerprint != model_fingerprint(repository_ / name)) {
        changed.push_back(name);
      }
    }
  }
  for (const std::string& name : gone) {
    try {
      unload(name);
    } catch (const Error&) {
      std::unique_lock lock(models_mutex_);
      models_.erase(name);  // never loaded, or failed: forget it
    }
  }
  for (const std::string& name : changed) {
    try {
      load(name);
    } catch (const Error& error) {
      log_.error(fmt::format("cannot load model '{}': {}", name, error.what()));
      std::unique_lock lock(models_mutex_);
      models_[name].fingerprint = model_fingerprint(repository_ / name);  // retried once it changes
    }
  }
}

const std::shared_ptr<ServedModel>& ModelManager::find_locked(const std::string& name,
                                                              int64_t version) const {
  auto found = models_.find(name);
  if (found == models_.end() || found->second.versions.empty()) {
    if (found != models_.end() && !found->second.reason.empty()) {
      fail(ErrorCode::kNotFound, "model '{}' is not loaded: {}", name, found->second.reason);
    }
    fail(ErrorCode::kNotFound, "model '{}' is not loaded", name);
  }
  const auto& versions = found->second.versions;
  if (version > 0) {
    auto at = versions.find(version);
    if (at == versions.end()) {
      fail(ErrorCode::kNotFound, "model '{}' has no version {} loaded", name, version);
    }
    if (!at->second->ready()) {
      fail(ErrorCode::kUnavailable, "model '{}' version {} is not ready", name, version);
    }
    return at->second;
  }
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
    if (it->second->ready()) return it->second;
  }
  fail(ErrorCode::kUnavailable, "model '{}' has no version ready", name);
}

std::shared_ptr<ServedModel> ModelManager::find(const std::string& name, int64_t version) const {
  std::shared_lock lock(models_mutex_);
  return find_locked(name, version);
}

std::vector<std::shared_ptr<ServedModel>> ModelManager::loaded(const std::string& name) const {
  std::shared_lock lock(models_mutex_);
  std::vector<std::shared_ptr<ServedModel>> result;
  for (const auto& [model_name, entry] : models_) {
    if (!name.empty() && model_name != name) continue;
    for (const auto& [version, served] : entry.versions) result.push_back(served);
  }
  return result;
}

std::vector<ModelState> ModelManager::index(bool ready_only) const {
  std::set<std::string> names;
  for (const std::string& name : list_models(repository_)) names.insert(name);
  std::shared_lock lock(models_mutex_);
  for (const auto& [name, entry] : models_) names.insert(name);
  std::vector<ModelState> states;
  for (const std::string& name : names) {
    auto found = models_.find(name);
    if (found == models_.end() || found->second.state.empty()) {
      if (!ready_only) states.push_back({name, std::nullopt, "", ""});
      continue;
    }
    const Entry& entry = found->second;
    for (const auto& [version, served] : entry.versions) {
      const bool ready = served->ready();
      if (ready_only && !ready) continue;
      states.push_back({name, version, ready ? "READY" : "UNAVAILABLE",
                        ready ? "" : "an instance's worker is restarting"});
    }
    if (entry.versions.empty() && !ready_only) {
      states.push_back({name, std::nullopt, entry.state, entry.reason});
    }
  }
  return states;
}

bool ModelManager::all_ready() const {
  std::shared_lock lock(models_mutex_);
  for (const auto& [name, entry] : models_) {
    if (entry.versions.empty() && entry.reason != "unloaded") {
      return false;
    }
    for (const auto& [version, served] : entry.versions) {
      if (!served->ready()) return false;
    }
  }
  return true;
}

void ModelManager::retire_all() {
  std::shared_lock lock(models_mutex_);
  for (const auto& [name, entry] : models_) {
    for (const auto& [version, served] : entry.versions) served->retire();
  }
}

}  // namespace inferlab::serve
