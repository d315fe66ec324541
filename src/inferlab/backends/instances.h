// Instances: `count` copies of one model that compute requests at the same
// time, opened the way a server runs them, so that the server and
// `inferlab load --in-process` measure exactly the same thing. On the native
// engine an instance is a stream of one Model in throughput mode (all
// streams share one set of packed weights); on every other engine it is a
// Model of its own, with its own threads (as Triton's backends do).
#pragma once

#include <memory>
#include <vector>

#include "inferlab/backends/backend.h"

namespace inferlab::backends {

class InstanceSet {
 public:
  // Opens `count` instances (>= 1) of `source` on `backend`, each computing
  // with `threads_per_instance` threads (0: the cores split evenly between
  // the instances, at least 1). Errors are the backend's.
  static InstanceSet open(Backend& backend, const ModelSource& source, BackendOptions options,
                          int count, int threads_per_instance);

  int count() const { return count_; }
  int threads_per_instance() const { return threads_per_instance_; }
  // The Model that instance `index` runs on; instances of a shared Model
  // call its run() concurrently (capabilities().concurrent_run holds).
  Model& model(int index) const { return *models_[models_.size() == 1 ? 0 : index]; }
  // Distinct Models (1 when the instances share one).
  int distinct_models() const { return static_cast<int>(models_.size()); }
  // A new Model opened as the instances were (to replace one whose worker
  // died), and the swap itself, which returns the old Model. Only for
  // instances that do not share a Model.
  std::unique_ptr<Model> open_replacement(Backend& backend, const ModelSource& source) const;
  std::unique_ptr<Model> replace(int index, std::unique_ptr<Model> model);

 private:
  std::vector<std::unique_ptr<Model>> models_;
  BackendOptions options_;
  int count_ = 0;
  int threads_per_instance_ = 0;
};

// The threads each of `count` instances gets when none are asked for: the
// cores split evenly, at least 1.
int default_threads_per_instance(int count);

}  // namespace inferlab::backends
