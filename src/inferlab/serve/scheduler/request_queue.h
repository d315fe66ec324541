// A model's queue: one bounded FIFO per priority level, with Triton's queue
// policy (max_queue_size, default timeout, timeout override, REJECT or
// DELAY on timeout). A plain data structure: the Scheduler locks around it
// and owns the threads that fire its timeouts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "inferlab/serve/scheduler/job.h"

namespace inferlab::serve {

struct QueuePolicy {
  size_t max_queue_size = 1024;    // requests waiting at this level; beyond: refused
  int64_t default_timeout_us = 0;  // 0: none
  bool allow_timeout_override = true;
  bool delay_on_timeout = false;  // DELAY: behind every other request instead of refused
};

struct QueueConfig {
  std::vector<QueuePolicy> levels{QueuePolicy{}};  // [0] is priority 1, the highest
  size_t default_level = 0;                        // index used for priority 0
};

class RequestQueue {
 public:
  explicit RequestQueue(QueueConfig config);

  enum class PushResult { kQueued, kFull };
  // Queues `job` (taking it only when kQueued), giving it `ticket`, its
  // level and its deadline. Throws Error(kInvalidArgument) for a priority
  // beyond the model's levels.
  PushResult push(std::unique_ptr<Job>& job, Clock::time_point now, uint64_t& ticket);

  // The level index of `job`'s priority; throws Error(kInvalidArgument) for
  // a priority beyond the model's levels.
  size_t level_of(const Job& job) const;

  // The next job to run: the oldest of the highest non-empty level, delayed
  // jobs last; null when empty.
  std::unique_ptr<Job> pop();
  // Takes the queued job with `ticket` out; null when it is not queued.
  std::unique_ptr<Job> remove(uint64_t ticket);
  // Takes out every job whose deadline passed under REJECT; moves those
  // under DELAY behind the rest.
  std::vector<std::unique_ptr<Job>> expire(Clock::time_point now);
  // Takes out every queued job (shutdown).
  std::vector<std::unique_ptr<Job>> take_all();

  std::optional<Clock::time_point> next_deadline() const;
  size_t size() const { return positions_.size(); }
  bool empty() const { return positions_.empty(); }
  size_t size_at(size_t level) const { return levels_.at(level).size(); }
  const QueueConfig& config() const { return config_; }

 private:
  using List = std::list<std::unique_ptr<Job>>;
  struct Position {
    List* list;
    List::iterator at;
  };
  std::unique_ptr<Job> take(uint64_t ticket);

  QueueConfig config_;
  std::vector<List> levels_;
  List delayed_;
  std::map<uint64_t, Position> positions_;
  std::multimap<Clock::time_point, uint64_t> deadlines_;
  uint64_t next_ticket_ = 1;
};

}  // namespace inferlab::serve
