#include "inferlab/core/signal_thread.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace inferlab {

namespace {

// The destructor wakes the thread with a signal it queues itself (SI_QUEUE,
// this pid, this value); the same signal sent by anyone else (kill, the
// terminal) has another si_code and reaches the callback.
constexpr int kStopValue = 0x5157;

bool ignored(int signal_number) {
  struct sigaction current {};
  sigaction(signal_number, nullptr, &current);
  return (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN;
}

}  // namespace

SignalThread::SignalThread(Callback on_signal) : on_signal_(std::move(on_signal)) {
  // Linux queues a blocked signal even when its action is "ignore", so an
  // ignored one is left out: blocking it would hand it to the callback.
  sigemptyset(&handled_);
  for (int number : {SIGINT, SIGTERM, SIGHUP}) {
    if (ignored(number)) continue;
    sigaddset(&handled_, number);
    if (wake_signal_ == 0) wake_signal_ = number;
  }
  pthread_sigmask(SIG_BLOCK, &handled_, &previous_mask_);
  if (wake_signal_ != 0) thread_ = std::thread([this] { wait_for_signals(); });
}

SignalThread::~SignalThread() {
  if (thread_.joinable()) {
    sigval value{};
    value.sival_int = kStopValue;
    pthread_sigqueue(thread_.native_handle(), wake_signal_, value);
    thread_.join();
  }
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void SignalThread::wait_for_signals() {
  for (;;) {
    siginfo_t info{};
    const int number = sigwaitinfo(&handled_, &info);
    if (number < 0) continue;  // EINTR: another signal's handler ran on this thread
    if (info.si_code == SI_QUEUE && info.si_pid == getpid() &&
        info.si_value.sival_int == kStopValue)
      return;
    on_signal_(number);
  }
}

void SignalThread::die_of(int signal_number) {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  raise(signal_number);  // to this thread, where it is now unblocked: the process ends
  _exit(128 + signal_number);
}

}  // namespace inferlab
