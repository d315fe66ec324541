// SignalThread: SIGINT, SIGTERM and SIGHUP handled by an ordinary thread, not
// by a signal handler. The constructor blocks the three signals in the
// calling thread, so every thread started after it inherits the block and
// the kernel leaves them pending until the one thread in sigwaitinfo() takes
// them; the callback then runs as normal code (it may lock, allocate, join,
// drain a server). Short commands kill their workers and die of the signal;
// a server stops accepting, drains, reaps its workers and exits 0.
//
// Construct it first thing in main(), before any other thread exists: a
// thread started earlier keeps the signals unblocked and would take the
// default action (terminate) instead. A signal the process inherited as
// ignored (nohup, a background job) stays ignored.
#pragma once

#include <signal.h>

#include <functional>
#include <thread>

namespace inferlab {

class SignalThread {
 public:
  using Callback = std::function<void(int signal_number)>;

  // Starts waiting; `on_signal` runs on the signal thread, once per signal
  // received (a second Ctrl-C during a drain calls it again).
  explicit SignalThread(Callback on_signal);
  // Stops the thread (after a running callback returns) and restores the
  // calling thread's signal mask; a signal still pending is then delivered
  // with its default action. Threads started meanwhile keep the block.
  ~SignalThread();
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;

  // Ends the process as the signal's default action would (so the parent
  // sees "killed by signal N", a shell $? of 128 + N). For callbacks of
  // commands that must not outlive an interrupt.
  [[noreturn]] static void die_of(int signal_number);

 private:
  void wait_for_signals();

  Callback on_signal_;
  sigset_t handled_;
  sigset_t previous_mask_;
  int wake_signal_ = 0;  // one of handled_ (0: all three ignored, no thread)
  std::thread thread_;
};

}  // namespace inferlab
