// The sending threads. Each keeps its own tallies (no lock on the hot path;
// one relaxed counter for progress) and they are merged after the join.
// Time-critical waits use an absolute deadline with the thread's timer
// slack at 1 ns, so an open-loop request leaves within microseconds of its
// schedule, and any lateness is measured (send_lag_ms), not hidden.
#include "inferlab/loadgen/load_loop.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>

#include "inferlab/core/error.h"

namespace inferlab::loadgen {

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::duration span) {
  return std::chrono::duration<double, std::milli>(span).count();
}

Clock::duration seconds(double value) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(value));
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Shared {
  explicit Shared(const LoadOptions& load_options) : options(load_options) {}
  const LoadOptions& options;
  Clock::time_point start, warm_end, end;
  int64_t warm_count = 0;  // open loop: requests scheduled inside the warm-up
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> measured{0};
  std::atomic<bool> abort{false};
};

struct Sender {
  LoadResult tally;
  Clock::time_point last_reply{};
  std::exception_ptr error;
};

void record(Shared& shared, Sender& sender, Outcome& outcome, double latency_ms,
            Clock::time_point replied) {
  ++sender.tally.requests;
  if (outcome.ok) {
    ++sender.tally.successes;
    sender.tally.latency_ms.push_back(latency_ms);
  } else {
    ++sender.tally.errors[outcome.error];
    sender.tally.error_details.try_emplace(outcome.error, std::move(outcome.detail));
  }
  sender.last_reply = std::max(sender.last_reply, replied);
  if (shared.options.requests > 0 || replied <= shared.end) {
    ++sender.tally.window_replies;
    if (outcome.ok) ++sender.tally.window_successes;
  }
  shared.measured.fetch_add(1, std::memory_order_relaxed);
}

void closed_loop(Shared& shared, Channel& channel, Sender& sender) {
  const int64_t limit = shared.options.requests;
  for (;;) {
    const Clock::time_point sent = Clock::now();
    const bool measured = sent >= shared.warm_end;
    if (measured && (limit > 0 ? shared.next.fetch_add(1) >= limit : sent >= shared.end)) return;
    Outcome outcome = channel.send();
    const Clock::time_point replied = Clock::now();
    if (measured) record(shared, sender, outcome, milliseconds(replied - sent), replied);
  }
}

void open_loop(Shared& shared, Channel& channel, Sender& sender) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const int64_t limit = shared.options.requests;
  for (;;) {
    const int64_t index = shared.next.fetch_add(1);
    const Clock::time_point scheduled =
        shared.start + seconds(static_cast<double>(index) / shared.options.rate);
    if (limit > 0 ? index >= shared.warm_count + limit : scheduled >= shared.end) return;
    std::this_thread::sleep_until(scheduled);
    const Clock::time_point sent = Clock::now();
    Outcome outcome = channel.send();
    const Clock::time_point replied = Clock::now();
    if (index >= shared.warm_count) {
      record(shared, sender, outcome, milliseconds(replied - scheduled), replied);
      sender.tally.send_lag_ms.push_back(milliseconds(sent - scheduled));
    }
  }
}

void check_options(const LoadOptions& options) {
  if (options.open_loop() ? options.connections < 1 : options.concurrency < 1)
    fail(ErrorCode::kInvalidArgument, "load: concurrency and connections must be at least 1");
  if (options.warmup_s < 0 || !std::isfinite(options.warmup_s) || options.duration_s <= 0 ||
      !std::isfinite(options.duration_s) || options.requests < 0 || !std::isfinite(options.rate))
    fail(ErrorCode::kInvalidArgument,
         "load: the warm-up must be >= 0 s, the duration > 0 s, the requests >= 0");
}

LoadResult merge(std::vector<Sender>& senders, const LoadOptions& options,
                 Clock::time_point warm_end, Clock::time_point finished) {
  LoadResult result;
  Clock::time_point last_reply = warm_end;
  for (Sender& sender : senders) {
    LoadResult& tally = sender.tally;
    result.requests += tally.requests;
    result.successes += tally.successes;
    result.window_replies += tally.window_replies;
    result.window_successes += tally.window_successes;
    for (const auto& [key, count] : tally.errors) result.errors[key] += count;
    for (auto& [key, detail] : tally.error_details) result.error_details.try_emplace(key, detail);
    result.latency_ms.insert(result.latency_ms.end(), tally.latency_ms.begin(),
                             tally.latency_ms.end());
    result.send_lag_ms.insert(result.send_lag_ms.end(), tally.send_lag_ms.begin(),
                              tally.send_lag_ms.end());
    result.connections_opened += tally.connections_opened;
    if (tally.requests > 0) last_reply = std::max(last_reply, sender.last_reply);
  }
  result.window_s =
      options.requests > 0
          ? std::chrono::duration<double>((result.requests > 0 ? last_reply : finished) - warm_end)
                .count()
          : options.duration_s;
  result.senders = static_cast<int>(senders.size());
  return result;
}

}  // namespace

LoadResult run_load(const LoadOptions& options, const ChannelFactory& make_channel,
                    const LoadProgress& progress) {
  check_options(options);
  const int count = options.open_loop() ? options.connections : options.concurrency;
  Shared shared(options);
  // The epsilon keeps 0.1 s at 100/s at 10 warm-up requests despite rounding.
  shared.warm_count = static_cast<int64_t>(std::ceil(options.warmup_s * options.rate - 1e-9));
  std::vector<Sender> senders(static_cast<size_t>(count));
  std::latch ready(count), go(1);
  std::mutex mutex;
  std::condition_variable all_done;
  int running = count;
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      Sender& sender = senders[static_cast<size_t>(i)];
      std::unique_ptr<Channel> channel;
      try {
        channel = make_channel(i);
        if (channel) channel->prepare();
      } catch (...) {
        sender.error = std::current_exception();
      }
      ready.count_down();
      go.wait();
      try {
        if (channel && !shared.abort.load()) {
          if (options.open_loop())
            open_loop(shared, *channel, sender);
          else
            closed_loop(shared, *channel, sender);
        }
      } catch (...) {
        sender.error = std::current_exception();
      }
      if (channel) sender.tally.connections_opened = channel->connections_opened();
      std::lock_guard lock(mutex);
      if (--running == 0) all_done.notify_one();
    });
  }
  ready.wait();
  for (const Sender& sender : senders)
    if (sender.error) shared.abort = true;
  shared.start = Clock::now();
  shared.warm_end = shared.start + seconds(options.warmup_s);
  shared.end = shared.warm_end + seconds(options.duration_s);
  go.count_down();

  const auto report = [&] {
    if (progress)
      progress(std::chrono::duration<double>(Clock::now() - shared.warm_end).count(),
               shared.measured.load(std::memory_order_relaxed));
  };
  double cpu_start = 0;
  {
    std::unique_lock lock(mutex);
    while (running > 0 && Clock::now() < shared.warm_end) {
      all_done.wait_until(lock,
                          std::min(shared.warm_end, Clock::now() + std::chrono::milliseconds(500)));
      report();
    }
    cpu_start = process_cpu_seconds();
    while (running > 0)
      if (!all_done.wait_for(lock, std::chrono::milliseconds(500), [&] { return running == 0; }))
        report();
  }
  const double cpu_end = process_cpu_seconds();
  const Clock::time_point finished = Clock::now();
  for (std::thread& thread : threads) thread.join();
  for (const Sender& sender : senders)
    if (sender.error) std::rethrow_exception(sender.error);
  LoadResult result = merge(senders, options, shared.warm_end, finished);
  result.cpu_s = cpu_end - cpu_start;
  return result;
}

}  // namespace inferlab::loadgen
