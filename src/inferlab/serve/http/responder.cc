#include "inferlab/serve/http/responder.h"

#include <atomic>
#include <mutex>

namespace inferlab::serve {

struct Responder::State {
  std::function<void(HttpResponse)> send;
  std::atomic<bool> answered{false};
  std::mutex cancel_mutex;
  bool cancelled = false;
  std::function<void()> on_cancel;
};

Responder::Responder(std::function<void(HttpResponse)> send) : state_(std::make_shared<State>()) {
  state_->send = std::move(send);
}

void Responder::operator()(HttpResponse response) const {
  if (state_->answered.exchange(true)) return;
  {
    std::lock_guard lock(state_->cancel_mutex);
    state_->on_cancel = nullptr;  // what it holds may not outlive the answer
  }
  state_->send(std::move(response));
}

void Responder::on_cancel(std::function<void()> callback) const {
  {
    std::lock_guard lock(state_->cancel_mutex);
    if (!state_->cancelled) {
      state_->on_cancel = std::move(callback);
      return;
    }
  }
  if (!answered()) callback();
}

void Responder::cancel() const {
  std::function<void()> callback;
  {
    std::lock_guard lock(state_->cancel_mutex);
    if (state_->cancelled) return;
    state_->cancelled = true;
    callback = std::move(state_->on_cancel);
  }
  if (callback && !answered()) callback();
}

bool Responder::answered() const { return state_->answered.load(); }

}  // namespace inferlab::serve
