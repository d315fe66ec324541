// See shared_model.h.
#include "inferlab/runtime/shared_model.h"

namespace inferlab::runtime {

model::Model SharedModel::graph_copy() const {
  const std::lock_guard<std::mutex> lock(caches->mutex);
  model::Model copy = model;
  copy.graph = std::make_shared<model::Graph>(*model.graph);
  return copy;
}

std::shared_ptr<SharedModel> SharedModels::find(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(key);
  if (it == models_.end()) return nullptr;
  std::shared_ptr<SharedModel> live = it->second.lock();
  if (!live) models_.erase(it);
  return live;
}

void SharedModels::remember(const std::string& key, const std::shared_ptr<SharedModel>& model) {
  const std::lock_guard<std::mutex> lock(mutex_);
  models_[key] = model;
}

std::shared_ptr<std::mutex> SharedModels::loading_lock(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<std::mutex>& loading = loading_[key];
  if (!loading) loading = std::make_shared<std::mutex>();
  return loading;
}

size_t SharedModels::size() {
  const std::lock_guard<std::mutex> lock(mutex_);
  size_t live = 0;
  for (auto it = models_.begin(); it != models_.end();) {
    if (it->second.expired()) {
      it = models_.erase(it);
    } else {
      ++live;
      ++it;
    }
  }
  return live;
}

}  // namespace inferlab::runtime
