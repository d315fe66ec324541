// Where SIGINT, SIGTERM and SIGHUP go. main() owns one InterruptRouter and
// its SignalThread asks it first: a command that handles interrupts itself
// (the server drains) installs a handler for its lifetime with
// InterruptHandler; every other command dies of the signal after its
// workers are killed, as before.
#pragma once

#include <functional>
#include <mutex>
#include <utility>

namespace inferlab::cli {

class InterruptRouter {
 public:
  // Returns whether a handler took the signal (false: the default action).
  bool deliver(int signal_number) {
    std::lock_guard lock(mutex_);
    return handler_ && handler_(signal_number);
  }

 private:
  friend class InterruptHandler;
  std::mutex mutex_;
  std::function<bool(int)> handler_;
};

// Installs `handler` (returning whether it took the signal) while in scope.
class InterruptHandler {
 public:
  InterruptHandler(InterruptRouter& router, std::function<bool(int)> handler) : router_(router) {
    std::lock_guard lock(router_.mutex_);
    router_.handler_ = std::move(handler);
  }
  ~InterruptHandler() {
    std::lock_guard lock(router_.mutex_);
    router_.handler_ = nullptr;
  }
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

 private:
  InterruptRouter& router_;
};

}  // namespace inferlab::cli
