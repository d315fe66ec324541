// What the kernel says about a process (this one or a worker): resident
// memory and CPU time, read from /proc. Used to attribute memory and CPU to
// the worker that ran a model.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace inferlab {

// A memory line of /proc/PID/status ("VmRSS", "VmHWM", ...) in KiB; -1 when
// the process or the line is gone.
int64_t process_memory_kib(pid_t pid, const std::string& key);

// User + system CPU time of the whole process (all threads), in ms; -1 when gone.
double process_cpu_ms(pid_t pid);

}  // namespace inferlab
