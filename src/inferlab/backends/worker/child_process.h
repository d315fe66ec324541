// ChildProcess: a worker process that cannot outlive InferLab. It runs in its
// own process group, gets SIGKILL when the thread that started it exits
// (PR_SET_PDEATHSIG), and is killed and reaped when the object is destroyed
// or when the program receives SIGINT/SIGTERM/SIGHUP (after
// install_interrupt_cleanup()). Its stdout and stderr are collected; the
// last 64 KiB explain a worker that died. PDEATHSIG follows the *thread*
// that forked, so start workers from threads that live as long as they do.
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

// Makes SIGINT, SIGTERM and SIGHUP kill and reap every live ChildProcess
// before the program dies of the signal. Call once, early, from main().
void install_interrupt_cleanup();

}  // namespace inferlab::backends
