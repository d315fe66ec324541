// SharedModel: what every stream of a session, and every session of the same
// model file in a process, computes from: the optimized graph with its
// constants and the kernels' node caches (prepacked weights). A stream or a
// second instance copies the graph's node list (the constants' memory is
// shared, never copied) and builds its own executor and run plans on the
// same caches, so each weight is held once per packed layout.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "inferlab/model/graph.h"
#include "inferlab/optimizer/optimizer.h"
#include "inferlab/runtime/executor.h"

namespace inferlab::runtime {

struct SharedModel {
  // The optimized model of the session that made it. Its graph is that
  // session's own: it drops released weights (stand-ins) while holding
  // caches->mutex, so copies are taken under the same lock (graph_copy).
  model::Model model;
  optimizer::OptimizationLog optimization_log;
  std::shared_ptr<NodeCaches> caches;
  // A model with dynamic inputs, specialized per input-shape signature:
  // the model as imported, never edited (each specialization optimizes a
  // copy); absent otherwise.
  std::optional<model::Model> imported;

  // A model whose graph may be edited on its own (its constants still share
  // memory with this one's).
  model::Model graph_copy() const;
};

// The models a process has open, by key (SessionOptions::shared_models):
// a Session opening a file another live Session opened with the same
// graph-shaping options starts from its SharedModel instead of importing
// and optimizing again. Entries are weak: the last Session of a model
// frees it. Thread-safe.
class SharedModels {
 public:
  // A live model for `key`, or null.
  std::shared_ptr<SharedModel> find(const std::string& key);
  void remember(const std::string& key, const std::shared_ptr<SharedModel>& model);
  // Live entries.
  size_t size();
  // The lock a load of `key` holds from find() to remember(), so that
  // sessions loading one model at once (streams specializing to the same
  // input shapes on their first requests) wait for the first and share it.
  std::shared_ptr<std::mutex> loading_lock(const std::string& key);

 private:
  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<SharedModel>> models_;
  std::map<std::string, std::shared_ptr<std::mutex>> loading_;
};

}  // namespace inferlab::runtime
