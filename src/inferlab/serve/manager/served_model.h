// One loaded version of a repository model: its instances on a backend,
// its completed config and its scheduler. Shared (shared_ptr) by the model
// manager and by the requests in flight, so an unload or a reload lets
// every request it accepted finish on this version.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/backends/instances.h"
#include "inferlab/backends/registry.h"
#include "inferlab/serve/repository/repository.h"
#include "inferlab/serve/scheduler/scheduler.h"
#include "inferlab/serve/server/server_log.h"

namespace inferlab::serve {

// Server-wide settings every model load uses.
struct LoadDefaults {
  size_t max_queue_size = 1024;  // per priority level, when the config leaves it 0
  // First and last wait between restarts of a worker that died.
  std::chrono::milliseconds restart_backoff_first{100};
  std::chrono::milliseconds restart_backoff_max{std::chrono::seconds(10)};
  // Requests of a model computing faster than this on average may run on
  // the I/O thread that read them (Scheduler::run_inline); 0: never.
  std::chrono::microseconds inline_below{100};
};

class ServedModel {
 public:
  // Opens version `version` of `model`. Errors name the model, the version
  // and the reason (the backend's, the config's).
  static std::shared_ptr<ServedModel> load(backends::BackendRegistry& registry,
                                           const RepositoryModel& model,
                                           const ModelVersion& version,
                                           const LoadDefaults& defaults, ServerLog& log);
  // Retires (if not yet) and waits for every accepted request to finish.
  ~ServedModel();
  ServedModel(const ServedModel&) = delete;
  ServedModel& operator=(const ServedModel&) = delete;

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const config::ModelConfig& config() const { return config_; }
  const std::string& platform() const;
  const std::vector<model::ValueInfo>& inputs() const { return inputs_; }
  const std::vector<model::ValueInfo>& outputs() const { return outputs_; }
  // Every instance is up (a worker being restarted makes it false).
  bool ready() const { return instances_down_.load() == 0 && !retired_.load(); }

  Scheduler& scheduler() { return *scheduler_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  // No new requests; those accepted still run. Returns at once.
  void retire();

 private:
  ServedModel() = default;
  void run_job(int instance, Job& job, JobResult& result);
  void worker_died(int instance, const Error& error);

  std::string name_;
  int64_t version_ = 0;
  std::string label_;
  config::ModelConfig config_;
  std::string platform_;
  backends::ModelSource source_;
  std::shared_ptr<backends::Backend> backend_;
  backends::InstanceSet instances_;
  bool shared_instances_ = false;  // one Model computing every instance's requests
  std::vector<model::ValueInfo> inputs_;
  std::vector<model::ValueInfo> outputs_;
  LoadDefaults defaults_;
  ServerLog* log_ = nullptr;

  // Instances whose worker died: their runs fail at once until a restart
  // thread has replaced them.
  std::unique_ptr<std::mutex[]> instance_mutexes_;
  std::vector<char> instance_down_;  // guarded by the instance's mutex
  std::atomic<int> instances_down_{0};
  std::atomic<bool> retired_{false};
  std::mutex restart_mutex_;
  std::condition_variable retired_wake_;  // ends a restart's backoff wait
  std::vector<std::thread> restart_threads_;

  std::unique_ptr<Scheduler> scheduler_;  // last: its threads use everything above
};

// InferLab's backend for a version when the config names none: the native
// engine for ONNX, libtorch for TorchScript, python for a Python-only model.
std::string default_backend_for(const backends::ModelSource& source);

}  // namespace inferlab::serve
