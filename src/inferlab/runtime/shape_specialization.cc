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
  if (static_cast<int>(entries_.size()) >= capacity_) drop_least_recent();
  entries_.push_back(std::move(entry));
  last_ = entries_.back().session.get();
  return *last_;
}

void ShapeSpecializations::drop_least_recent() {
  auto oldest = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->session.get() == pinned_) continue;
    if (oldest == entries_.end() || it->last_used < oldest->last_used) oldest = it;
  }
  if (oldest == entries_.end()) return;
  if (oldest->session.get() == last_) last_ = nullptr;
  entries_.erase(oldest);
}

}  // namespace inferlab::runtime
