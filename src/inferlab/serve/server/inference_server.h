// `inferlab serve` as an object: the model repository's models (manager),
// the KServe v2 REST routes over the HTTP transport, the control thread that
// loads, unloads and polls, and the drain that ends it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "inferlab/serve/http/http_server.h"
#include "inferlab/serve/manager/model_manager.h"
#include "inferlab/serve/rest/infer_handler.h"
#include "inferlab/serve/rest/route.h"

namespace inferlab::serve {

struct ServerOptions {
  std::filesystem::path repository;
  std::string http_address = "127.0.0.1";
  uint16_t http_port = 8000;  // 0: a free port
  int http_threads = 2;
  ModelControlMode mode = ModelControlMode::kNone;
  std::vector<std::string> load_models;  // explicit mode: loaded at start ("*": all)
  double poll_seconds = 15;
  bool strict_readiness = true;  // ready only when every model is
  bool exit_on_error = true;     // a model that fails to load at start stops the server
  double exit_timeout_seconds = 30;
  HttpLimits http_limits;
  InferSettings infer;
  LoadDefaults load_defaults;
};

class InferenceServer {
 public:
  // Loads the models the mode asks for, then listens. Throws the first load
  // error when exit_on_error, and kUnavailable when it cannot listen.
  InferenceServer(ServerOptions options, backends::BackendRegistry& registry, ServerLog& log);
  // drain() with no time left, then everything stops.
  ~InferenceServer();
  InferenceServer(const InferenceServer&) = delete;
  InferenceServer& operator=(const InferenceServer&) = delete;

  uint16_t http_port() const { return http_->port(); }
  const ModelManager& models() const { return *models_; }
  bool ready() const;

  // Readiness false and new inferences refused at once; waits up to the exit
  // timeout for accepted requests to be answered, then refuses those still
  // queued. Returns whether every accepted request finished in time.
  bool drain();

 private:
  void handle(HttpRequest request, Responder respond);
  void handle_repository(const Route& route, const HttpRequest& request, Responder respond);
  HttpResponse handle_model_query(const Route& route) const;
  void post_control(std::function<void()> task);
  void control_loop();
  void load_at_start();

  ServerOptions options_;
  ServerLog& log_;
  std::unique_ptr<ModelManager> models_;
  std::atomic<bool> draining_{false};

  std::mutex control_mutex_;
  std::condition_variable control_wake_;
  std::deque<std::function<void()>> control_tasks_;
  bool control_stop_ = false;
  std::thread control_thread_;

  std::unique_ptr<HttpServer> http_;  // last: its threads call handle()
};

}  // namespace inferlab::serve
