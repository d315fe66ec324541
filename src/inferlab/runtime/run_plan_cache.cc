#include "inferlab/runtime/run_plan_cache.h"

namespace inferlab::runtime {

RunPlan* RunPlanCache::find(const std::vector<const Tensor*>& inputs) {
  for (const std::unique_ptr<RunPlan>& plan : plans_) {
    if (plan->matches(inputs)) {
      plan->last_used = ++clock_;
      return plan.get();
    }
  }
  return nullptr;
}

RunPlan* RunPlanCache::insert(std::unique_ptr<RunPlan> plan) {
  if (capacity_ == 0) return nullptr;
  if (static_cast<int>(plans_.size()) >= capacity_) {
    size_t oldest = 0;
    for (size_t i = 1; i < plans_.size(); ++i) {
      if (plans_[i]->last_used < plans_[oldest]->last_used) oldest = i;
    }
    plans_.erase(plans_.begin() + static_cast<std::ptrdiff_t>(oldest));
  }
  plan->last_used = ++clock_;
  plans_.push_back(std::move(plan));
  return plans_.back().get();
}

}  // namespace inferlab::runtime
