#include "inferlab/serve/scheduler/request_queue.h"

#include <utility>

namespace inferlab::serve {

RequestQueue::RequestQueue(QueueConfig config)
    : config_(std::move(config)), levels_(config_.levels.size()) {}

namespace {

// Triton's rule: a request's own timeout counts when the policy allows an
// override and it shortens the default (or there is no default).
std::optional<Clock::time_point> deadline_of(const Job& job, const QueuePolicy& policy,
                                             Clock::time_point now) {
  int64_t timeout_us = policy.default_timeout_us;
  if (job.timeout_us && *job.timeout_us > 0 && policy.allow_timeout_override &&
      (timeout_us == 0 || *job.timeout_us < timeout_us)) {
    timeout_us = *job.timeout_us;
  }
  if (timeout_us <= 0) return std::nullopt;
  return now + std::chrono::microseconds(timeout_us);
}

}  // namespace

size_t RequestQueue::level_of(const Job& job) const {
  if (job.priority < 0 || static_cast<uint64_t>(job.priority) > levels_.size()) {
    fail(ErrorCode::kInvalidArgument,
         "priority {} is outside the model's priority levels (1 to {}, or 0 for the default)",
         job.priority, levels_.size());
  }
  return job.priority > 0 ? static_cast<size_t>(job.priority - 1) : config_.default_level;
}

RequestQueue::PushResult RequestQueue::push(std::unique_ptr<Job>& job, Clock::time_point now,
                                            uint64_t& ticket) {
  const size_t level = level_of(*job);
  const QueuePolicy& policy = config_.levels[level];
  if (levels_[level].size() >= policy.max_queue_size) return PushResult::kFull;
  job->ticket = next_ticket_++;
  job->level = level;
  job->enqueued = now;
  job->deadline = deadline_of(*job, policy, now);
  job->delayed = false;
  ticket = job->ticket;
  if (job->deadline) deadlines_.emplace(*job->deadline, ticket);
  List& list = levels_[level];
  list.push_back(std::move(job));
  positions_.emplace(ticket, Position{&list, std::prev(list.end())});
  return PushResult::kQueued;
}

std::unique_ptr<Job> RequestQueue::take(uint64_t ticket) {
  auto found = positions_.find(ticket);
  if (found == positions_.end()) return nullptr;
  std::unique_ptr<Job> job = std::move(*found->second.at);
  found->second.list->erase(found->second.at);
  positions_.erase(found);
  if (job->deadline) {
    auto [first, last] = deadlines_.equal_range(*job->deadline);
    for (auto it = first; it != last; ++it) {
      if (it->second == ticket) {
        deadlines_.erase(it);
        break;
      }
    }
  }
  return job;
}

std::unique_ptr<Job> RequestQueue::pop() {
  for (List& list : levels_) {
    if (!list.empty()) return take(list.front()->ticket);
  }
  if (!delayed_.empty()) return take(delayed_.front()->ticket);
  return nullptr;
}

std::unique_ptr<Job> RequestQueue::remove(uint64_t ticket) { return take(ticket); }

std::vector<std::unique_ptr<Job>> RequestQueue::expire(Clock::time_point now) {
  std::vector<std::unique_ptr<Job>> expired;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint64_t ticket = deadlines_.begin()->second;
    std::unique_ptr<Job> job = take(ticket);
    if (!config_.levels[job->level].delay_on_timeout) {
      expired.push_back(std::move(job));
      continue;
    }
    job->deadline.reset();  // delayed once, never refused afterwards
    job->delayed = true;
    delayed_.push_back(std::move(job));
    positions_.emplace(ticket, Position{&delayed_, std::prev(delayed_.end())});
  }
  return expired;
}

std::vector<std::unique_ptr<Job>> RequestQueue::take_all() {
  std::vector<std::unique_ptr<Job>> all;
  while (std::unique_ptr<Job> job = pop()) all.push_back(std::move(job));
  return all;
}

std::optional<Clock::time_point> RequestQueue::next_deadline() const {
  if (deadlines_.empty()) return std::nullopt;
  return deadlines_.begin()->first;
}

}  // namespace inferlab::serve
