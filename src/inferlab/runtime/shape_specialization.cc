// See shape_specialization.h.
#include "inferlab/runtime/shape_specialization.h"

#include <algorithm>

namespace inferlab::runtime {

ShapeSpecializations::ShapeSpecializations(model::Model imported, SessionOptions options,
                                           int capacity, Build build)
    : imported_(std::move(imported)),
      options_(std::move(options)),
      capacity_(std::max(1, capacity)),
      build_(std::move(build)) {}

bool ShapeSpecializations::matches(const Entry& entry,
                                   const std::vector<const Tensor*>& positional) {
  if (entry.signature.size() != positional.size()) return false;
  for (size_t i = 0; i < positional.size(); ++i) {
    if (positional[i]->shape() != entry.signature[i]) return false;
  }
  return true;
}

Session& ShapeSpecializations::for_inputs(const std::vector<const Tensor*>& positional,
                                          const std::vector<model::ValueInfo>& inputs) {
  for (Entry& entry : entries_) {
    if (matches(entry, positional)) {
      entry.last_used = ++clock_;
      last_ = entry.session.get();
      last_id_ = entry.id;
      return *last_;
    }
  }
  Entry entry;
  SessionOptions options = options_;
  for (size_t i = 0; i < positional.size(); ++i) {
    entry.signature.push_back(positional[i]->shape());
    options.input_shapes[inputs.at(i).name] = positional[i]->shape();
  }
  // The copy shares the imported weights' storage (Tensor copies share).
  entry.session = std::make_unique<Session>(build_(imported_, options));
  entry.last_used = ++clock_;
  entry.id = next_id_++;
  if (static_cast<int>(entries_.size()) >= capacity_) drop_least_recent();
  entries_.push_back(std::move(entry));
  last_ = entries_.back().session.get();
  last_id_ = entries_.back().id;
  return *last_;
}

const Session* ShapeSpecializations::find(uint64_t id) const {
  for (const Entry& entry : entries_) {
    if (entry.id == id) return entry.session.get();
  }
  return nullptr;
}

void ShapeSpecializations::drop_least_recent() {
  auto oldest = entries_.begin();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->last_used < oldest->last_used) oldest = it;
  }
  if (oldest == entries_.end()) return;
  if (oldest->session.get() == last_) last_ = nullptr;
  dropped_plans_built_ += oldest->session->plans_built();
  entries_.erase(oldest);
}

}  // namespace inferlab::runtime
