// RunPlanCache: run plans by input-shape signature, at most `capacity` of them,
// the least recently used dropped first. Finding a plan allocates nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "inferlab/runtime/run_plan.h"

namespace inferlab::runtime {

class RunPlanCache {
 public:
  explicit RunPlanCache(int capacity) : capacity_(capacity < 0 ? 0 : capacity) {}

  int capacity() const { return capacity_; }
  size_t size() const { return plans_.size(); }
  // The plan whose signature is the inputs' shapes (marked as just used), or null.
  RunPlan* find(const std::vector<const Tensor*>& inputs);
  // Adds a plan (marked as just used), dropping the least recently used one
  // when full. Returns it.
  RunPlan* insert(std::unique_ptr<RunPlan> plan);

 private:
  int capacity_;
  uint64_t clock_ = 0;
  std::vector<std::unique_ptr<RunPlan>> plans_;
};

}  // namespace inferlab::runtime
