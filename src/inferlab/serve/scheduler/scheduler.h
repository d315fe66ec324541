// A model version's scheduler: its queue (request_queue.h), one thread per
// instance taking the next request, and a timer thread that refuses (or
// delays) requests whose queue timeout passed, when it passes, not when an
// instance next looks. Knows nothing of HTTP or engines: an InstanceRunner
// computes a job on instance i.
//
// A model that computes in microseconds would spend most of a request in
// the two thread handoffs (to an instance thread and back to the I/O
// thread, each a wake-up of tens of µs). run_inline() lets the submitting
// thread compute such a request itself when an instance is idle and nothing
// waits; a model whose mean compute exceeds `inline_below` never runs
// inline, so I/O threads are not held by long computes.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/serve/scheduler/job.h"
#include "inferlab/serve/scheduler/request_queue.h"
#include "inferlab/serve/scheduler/statistics.h"

namespace inferlab::serve {

// Computes `job` on instance `instance`: fills result.outputs and the
// compute timings, or throws Error. Called from that instance's thread only.
using InstanceRunner = std::function<void(int instance, Job& job, JobResult& result)>;

class Scheduler {
 public:
  // `label` ("model 'add' version 1") names the model in errors.
  Scheduler(std::string label, QueueConfig config, int instances, InstanceRunner runner,
            std::chrono::nanoseconds inline_below = std::chrono::microseconds(100));
  // close(), then join(): every accepted job is completed first.
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  enum class Submit { kAccepted, kQueueFull, kClosed };
  // kAccepted: the job is queued (and `job` emptied), `ticket` names it for
  // cancel(), and it will complete exactly once. Otherwise the job is left
  // with the caller, not completed. Throws Error(kInvalidArgument) for a
  // priority the model does not have.
  Submit submit(std::unique_ptr<Job>& job, uint64_t& ticket);
  // Computes `job` on this thread when the queue is empty, an instance is
  // idle and the model's recent mean compute time (a moving average, after
  // at least 16 requests) is under `inline_below`; returns false (job untouched) otherwise. The job
  // completes before it returns. Throws like submit() for a bad priority.
  bool run_inline(std::unique_ptr<Job>& job);
  // The client went away: a queued job leaves the queue and completes with
  // kCancelled; a running one finishes (its answer goes nowhere). Returns
  // whether it was still queued.
  bool cancel(uint64_t ticket);
  // No more submits; queued jobs still run.
  void close();
  // Completes every queued job with `error` (a drain that ran out of time).
  void fail_queued(const Error& error);
  // After close(): waits until every job completed and the threads ended.
  void join();

  InferenceStatistics statistics() const;
  size_t queued() const;
  size_t running() const;
  const std::string& label() const { return label_; }

 private:
  void instance_loop(int instance);
  void timer_loop();
  void execute(int instance, Job& job, JobResult& result);
  bool fast_enough_to_inline() const;  // under mutex_
  void finish(std::unique_ptr<Job> job, JobResult result);

  std::string label_;
  InstanceRunner runner_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable timer_wake_;
  // When the timer thread wakes next unless notified (max: not before a
  // notification). A request whose deadline is later needs no wake-up: at
  // saturation one per request would preempt an instance for nothing.
  Clock::time_point timer_wakes_at_ = Clock::time_point::max();
  RequestQueue queue_;
  size_t running_ = 0;
  std::vector<char> instance_busy_;  // per instance: computing (on its thread or inline)
  std::chrono::nanoseconds inline_below_;
  // The runner's own time, measured here (what inlining would cost).
  uint64_t runs_ = 0;
  double run_ns_average_ = 0;
  bool closed_ = false;
  InferenceStatistics statistics_;
  std::vector<std::thread> threads_;
  std::once_flag joined_;
};

}  // namespace inferlab::serve
