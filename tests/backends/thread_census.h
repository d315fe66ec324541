// Counts the threads of a process that did real work during a stretch of
// code, from the CPU time each accumulates (/proc/PID/task/TID/stat),
// never from durations: a busy machine slows a run but does not add threads.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace inferlab::testing {

// utime + stime in clock ticks, by thread id.
inline std::map<std::string, long> thread_cpu_ticks(pid_t pid) {
  std::map<std::string, long> ticks;
  const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(task_dir, error)) {
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t name_end = text.rfind(')');
    if (name_end == std::string::npos) continue;
    std::istringstream fields(text.substr(name_end + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int index = 0; fields >> field; ++index) {
      if (index == 11) utime = std::stol(field);
      if (index == 12) {
        stime = std::stol(field);
        break;
      }
    }
    ticks[entry.path().filename().string()] = utime + stime;
  }
  return ticks;
}

// Threads whose CPU time grew by at least `min_cpu_ms` between two censuses.
inline int threads_that_worked(const std::map<std::string, long>& before,
                               const std::map<std::string, long>& after, double min_cpu_ms = 20.0) {
  const double ms_per_tick = 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  int count = 0;
  for (const auto& [thread, ticks] : after) {
    auto previous = before.find(thread);
    const long grown = ticks - (previous == before.end() ? 0 : previous->second);
    if (static_cast<double>(grown) * ms_per_tick >= min_cpu_ms) ++count;
  }
  return count;
}

}  // namespace inferlab::testing
