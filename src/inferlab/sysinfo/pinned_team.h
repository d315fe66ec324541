// Runs one piece of work on several threads at once, each pinned to its own
// usable core (sched_getaffinity) and all released by one barrier, and
// returns the single wall interval that covers them all: the earliest start
// to the latest end. A thread that starts late or is preempted lowers the
// figure, as it should for a "all cores at once" peak.
#pragma once

#include <functional>
#include <vector>

namespace inferlab::sysinfo {

// The CPUs this process may run on, ascending.
std::vector<int> usable_cpus();

// Runs `work(index)` for index in [0, threads) on `threads` std::threads,
// thread i pinned to cpus[i % cpus.size()] (`cpus` must not be empty).
// Returns the seconds from the first thread's start to the last thread's
// end, timed inside the threads after the barrier (thread creation and
// pinning are outside). `work` must be safe to call concurrently.
double run_pinned_team(const std::vector<int>& cpus, int threads,
                       const std::function<void(int)>& work);

}  // namespace inferlab::sysinfo
