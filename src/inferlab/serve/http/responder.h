// The answer to one HTTP request and the handle that sends it: a handler
// answers at once or later from any thread (after queueing, inference), and
// learns through it when the client went away first.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace inferlab::serve {

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // beyond Content-Type and -Length
  std::string body;
};

// Answers one request. Call it exactly once, from any thread; later calls
// are ignored.
class Responder {
 public:
  explicit Responder(std::function<void(HttpResponse)> send);
  void operator()(HttpResponse response) const;
  // Runs `callback` once if the client closes its connection before the
  // answer (at once when it already has); never after an answer.
  void on_cancel(std::function<void()> callback) const;
  // The transport's side: the client went away before the answer.
  void cancel() const;
  bool answered() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace inferlab::serve
