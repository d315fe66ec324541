// ChildProcess: a worker process that cannot outlive InferLab. It runs in its
// own process group, gets SIGKILL when InferLab dies (PR_SET_PDEATHSIG), and
// is killed and reaped when the object is destroyed or by
// kill_and_reap_all_children() (the CLI's signal thread calls it). Its
// stdout and stderr are collected; the last 64 KiB explain a worker that
// died. PDEATHSIG follows the *thread* that forked, not the process, so
// every fork happens on one process-wide spawner thread that lives until
// the program exits: a worker started or restarted from a short-lived
// thread (a request handler) does not die when that thread ends.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/backends/worker/unique_fd.h"

namespace inferlab::backends {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: absolute path of the program
  // Set (or, with an empty value, removed) on top of this process's environment.
  std::map<std::string, std::string> environment;
  // Descriptors the child inherits under the same numbers.
  std::vector<int> inherited_fds;
};

class ChildProcess {
 public:
  // Throws Error(kRuntime) naming the program when it cannot be started.
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Waits up to `timeout_ms` for the child to exit; true when it has.
  bool wait_for_exit(int timeout_ms);
  // SIGKILL to the child's process group, then reap it.
  void kill_and_reap();
  // "exited with status 3", "killed by signal 11 (Segmentation fault)",
  // or "still running".
  std::string exit_description() const;
  // The last 64 KiB the child wrote to stdout/stderr.
  std::string output_tail() const;

 private:
  void collect_output(UniqueFd pipe);
  bool try_reap(int options);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int wait_status_ = 0;
  mutable std::mutex output_mutex_;
  std::string output_;
  std::thread output_reader_;
};

// SIGKILL to the process group of every live ChildProcess, then reaps each.
// Safe from any thread and async-signal-safe (for a program that must die
// of a signal without leaving workers behind); the ChildProcess objects stay
// valid and see their children as ended.
void kill_and_reap_all_children();

}  // namespace inferlab::backends
