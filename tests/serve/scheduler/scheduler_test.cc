// Scheduler: instances run jobs in priority order, a full queue refuses at
// once, timeouts fire while every instance is busy, a cancelled job leaves
// the queue, close() still runs what was accepted, and statistics count it.
#include "inferlab/serve/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

namespace inferlab::serve {
namespace {

// A runner whose instances block until released, recording job order.
class GatedRunner {
 public:
  InstanceRunner runner() {
    return [this](int, Job& job, JobResult& result) {
      std::unique_lock lock(mutex_);
      started_.push_back(job.priority);
      changed_.notify_all();
      changed_.wait(lock, [this] { return open_; });
      result.outputs["y"] = Tensor(DataType::kFloat32, Shape{1});
    };
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void wait_started(size_t count) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return started_.size() >= count; });
  }
  std::vector<int64_t> started() {
    std::lock_guard lock(mutex_);
    return started_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  std::vector<int64_t> started_;
};

struct Outcome {
  std::promise<JobResult> promise;
  std::future<JobResult> future = promise.get_future();
};

std::unique_ptr<Job> job(Outcome& outcome, int64_t priority = 0,
                         std::optional<int64_t> timeout_us = std::nullopt) {
  auto made = std::make_unique<Job>();
  made->priority = priority;
  made->timeout_us = timeout_us;
  made->complete = [&outcome](JobResult result) { outcome.promise.set_value(std::move(result)); };
  return made;
}

QueueConfig config(size_t levels, size_t bound) {
  QueueConfig queue;
  queue.levels.assign(levels, QueuePolicy{bound, 0, true, false});
  queue.default_level = levels - 1;
  return queue;
}

TEST(Scheduler, RunsQueuedJobsByPriorityAndCountsThem) {
  GatedRunner gate;
  Scheduler scheduler("model 'm' version 1", config(2, 8), 1, gate.runner());
  Outcome busy, low, high;
  uint64_t ticket = 0;
  auto first = job(busy, 2);
  ASSERT_EQ(scheduler.submit(first, ticket), Scheduler::Submit::kAccepted);
  gate.wait_started(1);
  auto second = job(low, 2), third = job(high, 1);
  scheduler.submit(second, ticket);
  scheduler.submit(third, ticket);
  gate.open();
  for (Outcome* outcome : {&busy, &low, &high}) EXPECT_FALSE(outcome->future.get().error);
  EXPECT_EQ(gate.started(), (std::vector<int64_t>{2, 1, 2}));
  const InferenceStatistics statistics = scheduler.statistics();
  EXPECT_EQ(statistics.success.count, 3u);
  EXPECT_EQ(statistics.execution_count, 3u);
  EXPECT_EQ(statistics.fail.count, 0u);
}

TEST(Scheduler, AFullQueueRefusesAtOnceWithoutCompleting) {
  GatedRunner gate;
  Scheduler scheduler("m", config(1, 1), 1, gate.runner());
  Outcome running, queued, refused;
  uint64_t ticket = 0;
  auto a = job(running), b = job(queued), c = job(refused);
  scheduler.submit(a, ticket);
  gate.wait_started(1);
  EXPECT_EQ(scheduler.submit(b, ticket), Scheduler::Submit::kAccepted);
  EXPECT_EQ(scheduler.submit(c, ticket), Scheduler::Submit::kQueueFull);
  EXPECT_NE(c, nullptr);
  gate.open();
  EXPECT_FALSE(running.future.get().error);
  EXPECT_FALSE(queued.future.get().error);
}

TEST(Scheduler, TimeoutFiresWhileEveryInstanceIsBusy) {
  GatedRunner gate;
  Scheduler scheduler("model 'm' version 1", config(1, 8), 1, gate.runner());
  Outcome running, timed;
  uint64_t ticket = 0;
  auto a = job(running), b = job(timed, 0, 2000);
  scheduler.submit(a, ticket);
  gate.wait_started(1);
  scheduler.submit(b, ticket);
  // Answered by the timer while the only instance is still held.
  const JobResult result = timed.future.get();
  ASSERT_TRUE(result.error);
  EXPECT_EQ(result.error->code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(std::string(result.error->what()).find("model 'm' version 1"), std::string::npos);
  gate.open();
  EXPECT_FALSE(running.future.get().error);
  EXPECT_EQ(scheduler.statistics().fail.count, 1u);
}

// The timer sleeps until the earliest deadline it knows of; a request
// with an earlier one must wake it (requests without deadlines need not).
TEST(Scheduler, AnEarlierDeadlineWakesTheTimerWaitingForALaterOne) {
  GatedRunner gate;
  Scheduler scheduler("model 'm' version 1", config(1, 8), 1, gate.runner());
  Outcome running, late, early;
  uint64_t ticket = 0;
  auto a = job(running), b = job(late, 0, 600'000'000), c = job(early, 0, 2000);
  scheduler.submit(a, ticket);
  gate.wait_started(1);
  scheduler.submit(b, ticket);  // the timer now sleeps for ten minutes
  scheduler.submit(c, ticket);
  ASSERT_EQ(early.future.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "the timer slept past the 2 ms deadline";
  ASSERT_TRUE(early.future.get().error);
  EXPECT_EQ(late.future.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  gate.open();
  EXPECT_FALSE(running.future.get().error);
  EXPECT_FALSE(late.future.get().error);
}

TEST(Scheduler, CancelTakesAQueuedJobOut) {
  GatedRunner gate;
  Scheduler scheduler("m", config(1, 8), 1, gate.runner());
  Outcome running, cancelled;
  uint64_t first = 0, second = 0;
  auto a = job(running), b = job(cancelled);
  scheduler.submit(a, first);
  gate.wait_started(1);
  scheduler.submit(b, second);
  EXPECT_TRUE(scheduler.cancel(second));
  EXPECT_EQ(scheduler.queued(), 0u);
  EXPECT_EQ(cancelled.future.get().error->code(), ErrorCode::kCancelled);
  EXPECT_FALSE(scheduler.cancel(first));  // running: it finishes
  gate.open();
  EXPECT_FALSE(running.future.get().error);
}

TEST(Scheduler, CloseRefusesNewJobsButRunsThoseAccepted) {
  GatedRunner gate;
  Scheduler scheduler("m", config(1, 8), 2, gate.runner());
  std::vector<Outcome> outcomes(5);
  uint64_t ticket = 0;
  for (Outcome& outcome : outcomes) {
    auto made = job(outcome);
    ASSERT_EQ(scheduler.submit(made, ticket), Scheduler::Submit::kAccepted);
  }
  scheduler.close();
  Outcome late;
  auto refused = job(late);
  EXPECT_EQ(scheduler.submit(refused, ticket), Scheduler::Submit::kClosed);
  gate.open();
  scheduler.join();
  for (Outcome& outcome : outcomes) EXPECT_FALSE(outcome.future.get().error);
}

TEST(Scheduler, FailQueuedAnswersEveryWaitingJob) {
  GatedRunner gate;
  Scheduler scheduler("m", config(1, 8), 1, gate.runner());
  Outcome running, waiting;
  uint64_t ticket = 0;
  auto a = job(running), b = job(waiting);
  scheduler.submit(a, ticket);
  gate.wait_started(1);
  scheduler.submit(b, ticket);
  scheduler.close();
  scheduler.fail_queued(Error(ErrorCode::kUnavailable, "the server is shutting down"));
  EXPECT_EQ(waiting.future.get().error->code(), ErrorCode::kUnavailable);
  gate.open();
  EXPECT_FALSE(running.future.get().error);
}

TEST(Scheduler, ARunnerErrorFailsOnlyItsJob) {
  int calls = 0;
  Scheduler scheduler("m", config(1, 8), 1, [&calls](int, Job&, JobResult& result) {
    if (++calls == 1) fail(ErrorCode::kInvalidArgument, "input 'x' is wrong");
    result.outputs["y"] = Tensor(DataType::kFloat32, Shape{1});
  });
  Outcome bad, good;
  uint64_t ticket = 0;
  auto a = job(bad);
  scheduler.submit(a, ticket);
  EXPECT_EQ(bad.future.get().error->code(), ErrorCode::kInvalidArgument);
  auto b = job(good);
  scheduler.submit(b, ticket);
  EXPECT_FALSE(good.future.get().error);
}

// A model that computes in microseconds runs on the submitting thread once
// its mean is known, and never while something waits or every instance is
// busy; a slow one always goes through the queue.
TEST(Scheduler, FastModelsRunInlineOnceTheirMeanIsKnown) {
  std::atomic<int> on_instance_threads{0};
  const std::thread::id submitter = std::this_thread::get_id();
  Scheduler scheduler("m", config(1, 8), 1, [&](int, Job&, JobResult& result) {
    if (std::this_thread::get_id() != submitter) ++on_instance_threads;
    result.outputs["y"] = Tensor(DataType::kFloat32, Shape{1});
  });
  for (int i = 0; i < 16; ++i) {
    Outcome outcome;
    auto made = job(outcome);
    EXPECT_FALSE(scheduler.run_inline(made)) << "request " << i << ": no mean known yet";
    uint64_t ticket = 0;
    scheduler.submit(made, ticket);
    EXPECT_FALSE(outcome.future.get().error);
  }
  // A job is answered before its instance is marked idle again.
  while (scheduler.running() != 0) std::this_thread::yield();
  Outcome outcome;
  auto made = job(outcome);
  ASSERT_TRUE(scheduler.run_inline(made));
  EXPECT_FALSE(outcome.future.get().error);  // completed before run_inline returned
  EXPECT_EQ(on_instance_threads.load(), 16);
  EXPECT_EQ(scheduler.statistics().success.count, 17u);
  Outcome bad;
  auto wrong_priority = job(bad, 5);
  EXPECT_THROW(scheduler.run_inline(wrong_priority), Error);
}

TEST(Scheduler, SlowModelsAndBusyInstancesNeverRunInline) {
  auto warm_up = [](Scheduler& scheduler) {
    for (int i = 0; i < 16; ++i) {
      Outcome outcome;
      auto made = job(outcome);
      uint64_t ticket = 0;
      scheduler.submit(made, ticket);
      outcome.future.get();
    }
    // A job is answered before its instance is marked idle again.
    while (scheduler.running() != 0) std::this_thread::yield();
  };
  Scheduler slow("m", config(1, 64), 1, [](int, Job&, JobResult& result) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    result.outputs["y"] = Tensor(DataType::kFloat32, Shape{1});
  });
  warm_up(slow);
  Outcome refused;
  auto made = job(refused);
  EXPECT_FALSE(slow.run_inline(made));
  ASSERT_NE(made, nullptr);  // left with the caller, to be queued

  GatedRunner gate;
  Scheduler busy("m", config(1, 64), 1, gate.runner(), std::chrono::hours(1));
  gate.open();
  warm_up(busy);
  Outcome fast;
  auto quick = job(fast);
  EXPECT_TRUE(busy.run_inline(quick));  // idle instance, empty queue, fast enough

  std::atomic<bool> hold{false};
  std::atomic<bool> holding{false};
  Scheduler held("m", config(1, 64), 1, [&](int, Job&, JobResult& result) {
    holding = hold.load();
    while (hold.load()) std::this_thread::yield();
    result.outputs["y"] = Tensor(DataType::kFloat32, Shape{1});
  });
  warm_up(held);
  hold = true;
  Outcome running;
  auto first = job(running);
  uint64_t ticket = 0;
  held.submit(first, ticket);
  while (!holding.load()) std::this_thread::yield();
  Outcome waiting;
  auto second = job(waiting);
  EXPECT_FALSE(held.run_inline(second));  // the only instance is busy
  hold = false;
  EXPECT_FALSE(running.future.get().error);
}

}  // namespace
}  // namespace inferlab::serve
