// WorkerConnection: one running worker process and its channel, with the
// request/reply discipline of docs/worker-protocol.md. A reply of type
// "error" becomes an inferlab::Error; a worker that dies or closes its end
// becomes an Error carrying how it ended and the last lines it printed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/worker/channel.h"
#include "inferlab/backends/worker/child_process.h"
#include "inferlab/backends/worker/shared_arena.h"

namespace inferlab::backends {

struct WorkerLaunch {
  std::string backend;            // for messages: "python", "libtorch", ...
  std::vector<std::string> argv;  // program and arguments; "--channel-fd N" is appended
  std::map<std::string, std::string> environment;
  double start_timeout_s = 120.0;
  double call_timeout_s = 0.0;  // per request after start-up; 0 = no limit
};

class WorkerConnection {
 public:
  // Starts the worker and waits for its hello (or its start-up error).
  explicit WorkerConnection(const WorkerLaunch& launch);
  ~WorkerConnection();
  WorkerConnection(const WorkerConnection&) = delete;
  WorkerConnection& operator=(const WorkerConnection&) = delete;

  const nlohmann::json& hello() const { return hello_; }
  double startup_ms() const { return startup_ms_; }
  pid_t pid() const { return child_->pid(); }

  // Sends `request` (with `tensors` under `tensor_key` when given) and returns
  // the reply whose type must be `expected_reply`. Tensors in the reply
  // (under "outputs") are copied into `received` when it is non-null.
  nlohmann::json request(nlohmann::json request, const char* expected_reply,
                         const TensorMap* tensors = nullptr, const char* tensor_key = nullptr,
                         TensorMap* received = nullptr);

  // Asks the worker to exit, then makes sure it has.
  void close();

 private:
  [[noreturn]] void fail_worker_gone(const std::string& during);
  ChannelMessage receive_reply(const std::string& during, int timeout_ms);

  std::string backend_;
  std::unique_ptr<ChildProcess> child_;
  Channel channel_;
  SharedArena arena_;
  ArenaView peer_arena_;
  nlohmann::json hello_;
  double startup_ms_ = 0.0;
  int call_timeout_ms_ = -1;  // -1: wait for ever
};

}  // namespace inferlab::backends
