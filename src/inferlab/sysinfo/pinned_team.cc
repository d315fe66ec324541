// Pinned threads released together; see pinned_team.h.
#include "inferlab/sysinfo/pinned_team.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "inferlab/core/error.h"

namespace inferlab::sysinfo {
namespace {

using Clock = std::chrono::steady_clock;

struct ThreadTiming {
  Clock::time_point start;
  Clock::time_point end;
};

// Returns 0 or the pthread error number (not thrown here: this runs on the worker).
int pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace

std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    fail(ErrorCode::kRuntime, "sched_getaffinity failed: {}", std::strerror(errno));
  }
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

double run_pinned_team(const std::vector<int>& cpus, int threads,
                       const std::function<void(int)>& work) {
  if (cpus.empty() || threads < 1) {
    fail(ErrorCode::kInvalidArgument, "a pinned team needs CPUs and at least one thread");
  }
  std::vector<ThreadTiming> timings(threads);
  std::vector<int> pin_errors(threads, 0);
  std::barrier<> pinned(threads);
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto body = [&](int index) {
    pin_errors[index] = pin_current_thread(cpus[index % cpus.size()]);
    pinned.arrive_and_wait();
    timings[index].start = Clock::now();
    try {
      work(index);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
    timings[index].end = Clock::now();
  };
  std::vector<std::thread> team;
  team.reserve(threads);
  for (int index = 0; index < threads; ++index) team.emplace_back(body, index);
  for (std::thread& thread : team) thread.join();
  if (first_error) std::rethrow_exception(first_error);
  for (int index = 0; index < threads; ++index) {
    if (pin_errors[index] != 0) {
      fail(ErrorCode::kRuntime, "could not pin thread {} to CPU {}: {}", index,
           cpus[index % cpus.size()], std::strerror(pin_errors[index]));
    }
  }
  Clock::time_point first_start = timings[0].start;
  Clock::time_point last_end = timings[0].end;
  for (const ThreadTiming& timing : timings) {
    first_start = std::min(first_start, timing.start);
    last_end = std::max(last_end, timing.end);
  }
  return std::chrono::duration<double>(last_end - first_start).count();
}

}  // namespace inferlab::sysinfo
