#include "inferlab/serve/scheduler/scheduler.h"

#include <pthread.h>

#include <algorithm>
#include <string>
#include <utility>

namespace inferlab::serve {

namespace {

int64_t elapsed_ns(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

uint64_t epoch_ms() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

}  // namespace

Scheduler::Scheduler(std::string label, QueueConfig config, int instances, InstanceRunner runner,
                     std::chrono::nanoseconds inline_below)
    : label_(std::move(label)),
      runner_(std::move(runner)),
      queue_(std::move(config)),
      instance_busy_(static_cast<size_t>(std::max(instances, 1)), 0),
      inline_below_(inline_below) {
  // Named, so `top -H` shows where a server's time goes.
  for (int i = 0; i < std::max(instances, 1); ++i) {
    threads_.emplace_back([this, i] {
      pthread_setname_np(pthread_self(), ("instance " + std::to_string(i)).c_str());
      instance_loop(i);
    });
  }
  threads_.emplace_back([this] {
    pthread_setname_np(pthread_self(), "queue timer");
    timer_loop();
  });
}

Scheduler::~Scheduler() {
  close();
  join();
}

Scheduler::Submit Scheduler::submit(std::unique_ptr<Job>& job, uint64_t& ticket) {
  bool wake_timer = false;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return Submit::kClosed;
    if (queue_.push(job, Clock::now(), ticket) == RequestQueue::PushResult::kFull) {
      return Submit::kQueueFull;
    }
    const std::optional<Clock::time_point> next = queue_.next_deadline();
    wake_timer = next && *next < timer_wakes_at_;
  }
  work_ready_.notify_all();  // one may be lent to an inline run
  if (wake_timer) timer_wake_.notify_one();
  return Submit::kAccepted;
}

bool Scheduler::cancel(uint64_t ticket) {
  std::unique_ptr<Job> job;
  {
    std::lock_guard lock(mutex_);
    job = queue_.remove(ticket);
  }
  if (!job) return false;
  timer_wake_.notify_all();  // a closed scheduler's timer waits for the queue to empty
  JobResult result;
  result.error = Error(ErrorCode::kCancelled, label_ + ": the client closed the connection");
  finish(std::move(job), std::move(result));
  return true;
}

void Scheduler::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  work_ready_.notify_all();
  timer_wake_.notify_all();
}

void Scheduler::fail_queued(const Error& error) {
  std::vector<std::unique_ptr<Job>> jobs;
  {
    std::lock_guard lock(mutex_);
    jobs = queue_.take_all();
  }
  for (std::unique_ptr<Job>& job : jobs) {
    JobResult result;
    result.error = error;
    finish(std::move(job), std::move(result));
  }
  timer_wake_.notify_all();
}

void Scheduler::join() {
  std::call_once(joined_, [this] {
    for (std::thread& thread : threads_) thread.join();
  });
}

void Scheduler::execute(int instance, Job& job, JobResult& result) {
  const Clock::time_point start = Clock::now();
  try {
    runner_(instance, job, result);
  } catch (const Error& error) {
    result.error = error;
  } catch (const std::exception& error) {
    result.error = Error(ErrorCode::kRuntime, label_ + ": " + error.what());
  }
  if (result.error) result.outputs.clear();
  // A moving average, so a slow first run (plans built, pages faulted)
  // fades instead of weighing on the mean for thousands of requests.
  const double run_ns = static_cast<double>(elapsed_ns(start, Clock::now()));
  std::lock_guard lock(mutex_);
  run_ns_average_ = runs_ == 0 ? run_ns : 0.9 * run_ns_average_ + 0.1 * run_ns;
  ++runs_;
}

void Scheduler::instance_loop(int instance) {
  const size_t index = static_cast<size_t>(instance);
  std::unique_lock lock(mutex_);
  for (;;) {
    // An instance lent to an inline run takes nothing until it is back.
    work_ready_.wait(lock, [&] {
      return (closed_ && queue_.empty()) || (!queue_.empty() && !instance_busy_[index]);
    });
    std::unique_ptr<Job> job = queue_.pop();
    if (!job) return;  // closed and drained
    if (closed_ && queue_.empty()) timer_wake_.notify_all();
    ++running_;
    instance_busy_[index] = 1;
    lock.unlock();
    JobResult result;
    result.timings.queue_ns = elapsed_ns(job->enqueued, Clock::now());
    execute(instance, *job, result);
    finish(std::move(job), std::move(result));
    lock.lock();
    instance_busy_[index] = 0;
    --running_;
  }
}

bool Scheduler::fast_enough_to_inline() const {
  return runs_ >= 16 && run_ns_average_ < static_cast<double>(inline_below_.count());
}

bool Scheduler::run_inline(std::unique_ptr<Job>& job) {
  size_t instance = 0;
  {
    std::lock_guard lock(mutex_);
    queue_.level_of(*job);  // the same refusal a queued request gets
    if (closed_ || !queue_.empty() || !fast_enough_to_inline()) return false;
    while (instance < instance_busy_.size() && instance_busy_[instance]) ++instance;
    if (instance == instance_busy_.size()) return false;
    instance_busy_[instance] = 1;
    ++running_;
  }
  job->enqueued = Clock::now();
  JobResult result;
  execute(static_cast<int>(instance), *job, result);
  finish(std::move(job), std::move(result));
  bool waiting = false;
  {
    std::lock_guard lock(mutex_);
    instance_busy_[instance] = 0;
    --running_;
    waiting = !queue_.empty() || closed_;
  }
  if (waiting) work_ready_.notify_all();  // its thread may take what queued meanwhile
  return true;
}

void Scheduler::timer_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (closed_ && queue_.empty()) return;
    const std::optional<Clock::time_point> next = queue_.next_deadline();
    timer_wakes_at_ = next.value_or(Clock::time_point::max());
    if (next) {
      timer_wake_.wait_until(lock, *next);
    } else {
      timer_wake_.wait(lock);
    }
    timer_wakes_at_ = Clock::time_point::min();  // awake: it looks at the queue next
    std::vector<std::unique_ptr<Job>> expired = queue_.expire(Clock::now());
    if (expired.empty()) continue;
    work_ready_.notify_all();  // delayed jobs may have moved
    lock.unlock();
    for (std::unique_ptr<Job>& job : expired) {
      JobResult result;
      result.error = Error(ErrorCode::kDeadlineExceeded,
                           label_ +
                               ": the request's queue timeout passed before an instance "
                               "could take it");
      finish(std::move(job), std::move(result));
    }
    lock.lock();
  }
}

void Scheduler::finish(std::unique_ptr<Job> job, JobResult result) {
  const Clock::time_point now = Clock::now();
  {
    std::lock_guard lock(mutex_);
    const int64_t total_ns = elapsed_ns(job->enqueued, now);
    if (result.error) {
      statistics_.fail.add(total_ns);
    } else {
      statistics_.success.add(total_ns);
      statistics_.queue.add(result.timings.queue_ns);
      statistics_.compute_input.add(result.timings.compute_input_ns);
      statistics_.compute_infer.add(result.timings.compute_infer_ns);
      statistics_.compute_output.add(result.timings.compute_output_ns);
      statistics_.inference_count += static_cast<uint64_t>(std::max<int64_t>(job->batch_size, 1));
      statistics_.execution_count += 1;
      statistics_.last_inference_ms = epoch_ms();
    }
  }
  try {
    job->complete(std::move(result));
  } catch (...) {
    // An answer that cannot be sent (encoding failed, client gone) is the
    // caller's to report; the scheduler must keep running.
  }
}

InferenceStatistics Scheduler::statistics() const {
  std::lock_guard lock(mutex_);
  return statistics_;
}

size_t Scheduler::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

size_t Scheduler::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

}  // namespace inferlab::serve
