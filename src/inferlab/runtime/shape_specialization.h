// Sessions specialized to the input shapes they are run with. Most of the
// optimizer (the fusions, the layout pass, the memory plan) needs static
// shapes, so a model with a dynamic batch, loaded without fixed input
// shapes, would otherwise run at little more than level 1. Its session
// keeps the imported model and, per input-shape signature seen, a session
// of its own optimized for exactly those shapes (ONNX Runtime optimizes
// such models without static shapes; InferLab specializes instead). The
// least recently used signature goes first beyond `capacity` (a bound
// session finds its specialization again by id, rebinding if it was
// dropped).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/runtime/session.h"

namespace inferlab::runtime {

class ShapeSpecializations {
 public:
  // `build` optimizes a copy of the model for the given options (whose
  // input_shapes fix every input).
  using Build = std::function<Session(model::Model, const SessionOptions&)>;
  ShapeSpecializations(model::Model imported, SessionOptions options, int capacity, Build build);

  // The session for inputs of these shapes (`inputs` are the model's
  // declared inputs, in the same order), built on first use; finding one
  // allocates nothing.
  Session& for_inputs(const std::vector<const Tensor*>& positional,
                      const std::vector<model::ValueInfo>& inputs);
  // The session used last, or null, and its id (unique for the life of
  // this object: a dropped session's id never comes back).
  Session* last() const { return last_; }
  uint64_t last_id() const { return last_id_; }
  size_t size() const { return entries_.size(); }
  // The session with this id, or null once dropped.
  const Session* find(uint64_t id) const;
  // Plans built by sessions already dropped.
  int64_t dropped_plans_built() const { return dropped_plans_built_; }
  // Every specialized session, for figures summed over them.
  template <typename Visit>
  void for_each(Visit visit) const {
    for (const Entry& entry : entries_) visit(*entry.session);
  }

 private:
  struct Entry {
    std::vector<Shape> signature;
    std::unique_ptr<Session> session;
    uint64_t id = 0;
    uint64_t last_used = 0;
  };
  static bool matches(const Entry& entry, const std::vector<const Tensor*>& positional);
  void drop_least_recent();

  model::Model imported_;
  SessionOptions options_;
  int capacity_;
  Build build_;
  std::vector<Entry> entries_;
  uint64_t clock_ = 0;
  Session* last_ = nullptr;
  uint64_t last_id_ = 0;
  uint64_t next_id_ = 1;
  int64_t dropped_plans_built_ = 0;
};

}  // namespace inferlab::runtime
