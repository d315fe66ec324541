#include "inferlab/backends/instances.h"

#include <algorithm>
#include <string>
#include <thread>

#include "inferlab/core/error.h"

namespace inferlab::backends {

int default_threads_per_instance(int count) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / std::max(count, 1));
}

InstanceSet InstanceSet::open(Backend& backend, const ModelSource& source, BackendOptions options,
                              int count, int threads_per_instance) {
  if (count < 1) fail(ErrorCode::kInvalidArgument, "model '{}': {} instances", source.name, count);
  InstanceSet set;
  set.count_ = count;
  set.threads_per_instance_ =
      threads_per_instance > 0 ? threads_per_instance : default_threads_per_instance(count);
  // Native streams share one set of weights; a second Model would share
  // them too (SharedModels), but streams also share one OpenMP team split
  // between them, which is what the engine's throughput mode is tuned for.
  if (backend.name() == "native" && count > 1) {
    options.threads = count * set.threads_per_instance_;
    options.settings["streams"] = std::to_string(count);
    set.options_ = options;
    set.models_.push_back(backend.open(source, options));
    if (!set.models_.back()->capabilities().concurrent_run) {
      fail(ErrorCode::kRuntime, "model '{}': native streams did not allow concurrent runs",
           source.name);
    }
    return set;
  }
  options.threads = set.threads_per_instance_;
  set.options_ = options;
  for (int i = 0; i < count; ++i) set.models_.push_back(backend.open(source, options));
  return set;
}

std::unique_ptr<Model> InstanceSet::open_replacement(Backend& backend,
                                                     const ModelSource& source) const {
  if (models_.size() == 1 && count_ > 1) {
    fail(ErrorCode::kInvalidArgument, "model '{}': its instances share one Model", source.name);
  }
  return backend.open(source, options_);
}

std::unique_ptr<Model> InstanceSet::replace(int index, std::unique_ptr<Model> model) {
  std::swap(models_.at(static_cast<size_t>(index)), model);
  return model;
}

}  // namespace inferlab::backends
