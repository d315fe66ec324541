#include "inferlab/serve/server/inference_server.h"

#include <chrono>

#include <fmt/format.h>

#include "inferlab/serve/rest/metadata_json.h"
#include "inferlab/serve/rest/responses.h"

namespace inferlab::serve {

namespace {

using SteadyClock = std::chrono::steady_clock;

const char* mode_name(ModelControlMode mode) {
  switch (mode) {
    case ModelControlMode::kNone:
      return "none";
    case ModelControlMode::kPoll:
      return "poll";
    case ModelControlMode::kExplicit:
      return "explicit";
  }
  return "?";
}

// The body of a repository request: empty, or an object whose
// "parameters" InferLab does not take (Triton's "config" and "file:"
// overrides) are refused by name.
nlohmann::json repository_body(const HttpRequest& request, const char* allowed_parameter) {
  if (request.body.empty()) return nlohmann::json::object();
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    fail(ErrorCode::kInvalidArgument, "{}: the body is not a JSON object", request.target);
  }
  if (body.contains("parameters")) {
    if (!body["parameters"].is_object()) {
      fail(ErrorCode::kInvalidArgument, "{}: \"parameters\" is not an object", request.target);
    }
    for (const auto& [key, value] : body["parameters"].items()) {
      if (allowed_parameter == nullptr || key != allowed_parameter) {
        fail(ErrorCode::kUnsupported, "{}: parameter '{}' is not supported (docs/serve.md)",
             request.target, key);
      }
    }
  }
  return body;
}

}  // namespace

InferenceServer::InferenceServer(ServerOptions options, backends::BackendRegistry& registry,
                                 ServerLog& log)
    : options_(std::move(options)), log_(log) {
  models_ = std::make_unique<ModelManager>(options_.repository, options_.mode,
                                           options_.load_defaults, registry, log_);
  load_at_start();
  control_thread_ = std::thread([this] { control_loop(); });
  AccessLogger access;
  if (log_.access_log()) {
    access = [this](const AccessRecord& record) {
      log_.access(fmt::format("{} \"{} {}\" {} {} {:.3f}ms", record.remote, record.method,
                              record.target, record.status, record.response_bytes,
                              record.duration_ms));
    };
  }
  try {
    http_ = std::make_unique<HttpServer>(
        options_.http_address, options_.http_port,
        [this](HttpRequest request, Responder respond) { handle(std::move(request), respond); },
        options_.http_limits, options_.http_threads, std::move(access));
  } catch (...) {
    {
      std::lock_guard lock(control_mutex_);
      control_stop_ = true;
    }
    control_wake_.notify_all();
    control_thread_.join();
    throw;
  }
}

InferenceServer::~InferenceServer() {
  draining_ = true;
  {
    std::lock_guard lock(control_mutex_);
    control_stop_ = true;
  }
  control_wake_.notify_all();
  if (control_thread_.joinable()) control_thread_.join();
  models_->retire_all();
  for (const auto& served : models_->loaded()) {
    served->scheduler().fail_queued(Error(ErrorCode::kUnavailable, "the server is shutting down"));
  }
  // The transport stops first (no handler may run once the models go), but
  // is destroyed last: answers still posted to it must find it there.
  http_->stop();
  models_.reset();
  http_.reset();
}

void InferenceServer::load_at_start() {
  std::vector<std::pair<std::string, std::string>> failures;
  if (options_.mode != ModelControlMode::kExplicit) {
    failures = models_->load_all();
  } else {
    for (const std::string& name : options_.load_models) {
      if (name == "*") {
        auto all = models_->load_all();
        failures.insert(failures.end(), all.begin(), all.end());
        continue;
      }
      try {
        models_->load(name);
      } catch (const Error& error) {
        log_.error(fmt::format("cannot load model '{}': {}", name, error.what()));
        failures.emplace_back(name, error.what());
      }
    }
  }
  if (!failures.empty() && options_.exit_on_error) {
    fail(ErrorCode::kInvalidModel,
         "{} model(s) failed to load (--exit-on-error=false serves the others); the first, "
         "'{}': {}",
         failures.size(), failures[0].first, failures[0].second);
  }
}

bool InferenceServer::ready() const {
  if (draining_.load()) return false;
  return !options_.strict_readiness || models_->all_ready();
}

void InferenceServer::post_control(std::function<void()> task) {
  {
    std::lock_guard lock(control_mutex_);
    control_tasks_.push_back(std::move(task));
  }
  control_wake_.notify_all();
}

void InferenceServer::control_loop() {
  auto next_poll = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                            std::chrono::duration<double>(options_.poll_seconds));
  std::unique_lock lock(control_mutex_);
  for (;;) {
    if (control_stop_) return;
    if (!control_tasks_.empty()) {
      std::function<void()> task = std::move(control_tasks_.front());
      control_tasks_.pop_front();
      lock.unlock();
      task();
      lock.lock();
      continue;
    }
    if (options_.mode != ModelControlMode::kPoll) {
      control_wake_.wait(lock);
      continue;
    }
    if (control_wake_.wait_until(lock, next_poll) == std::cv_status::timeout) {
      lock.unlock();
      try {
        models_->poll();
      } catch (const Error& error) {
        log_.error(fmt::format("repository poll: {}", error.what()));
      }
      next_poll = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                                           std::chrono::duration<double>(options_.poll_seconds));
      lock.lock();
    }
  }
}

void InferenceServer::handle(HttpRequest request, Responder respond) {
  Route route;
  try {
    route = parse_route(request.target);
  } catch (const Error& error) {
    return respond(error_response(error));
  }
  if (route.kind == RouteKind::kUnknown) {
    return respond(error_response(404, fmt::format("no such endpoint: {}", request.target)));
  }
  if (request.method != route_method(route.kind)) {
    HttpResponse response =
        error_response(405, fmt::format("{} takes {}, not {}", request.target,
                                        route_method(route.kind), request.method));
    response.headers.emplace_back("Allow", route_method(route.kind));
    return respond(std::move(response));
  }
  switch (route.kind) {
    case RouteKind::kServerMetadata:
      return respond(json_response(200, server_metadata_json()));
    case RouteKind::kHealthLive:
      return respond(json_response(200, {{"live", true}}));
    case RouteKind::kHealthReady: {
      const bool is_ready = ready();
      return respond(json_response(is_ready ? 200 : 400, {{"ready", is_ready}}));
    }
    case RouteKind::kInfer:
      if (draining_.load()) return respond(shutting_down_response());
      return handle_infer(*models_, route, std::move(request), respond, options_.infer, draining_);
    case RouteKind::kRepositoryIndex:
    case RouteKind::kRepositoryLoad:
    case RouteKind::kRepositoryUnload:
      return handle_repository(route, request, respond);
    default:
      try {
        return respond(handle_model_query(route));
      } catch (const Error& error) {
        return respond(error_response(error));
      }
  }
}

HttpResponse InferenceServer::handle_model_query(const Route& route) const {
  if (route.kind == RouteKind::kModelReady) {
    bool is_ready = !draining_.load();
    try {
      models_->find(route.model, route.version);
    } catch (const Error&) {
      is_ready = false;
    }
    return json_response(is_ready ? 200 : 400, {{"name", route.model}, {"ready", is_ready}});
  }
  if (route.kind == RouteKind::kModelStats) {
    std::vector<std::shared_ptr<ServedModel>> versions = models_->loaded(route.model);
    if (route.version > 0) {
      std::erase_if(versions,
                    [&](const auto& served) { return served->version() != route.version; });
    }
    if (!route.model.empty() && versions.empty()) {
      fail(ErrorCode::kNotFound, "model '{}'{} is not loaded", route.model,
           route.version > 0 ? fmt::format(" version {}", route.version) : "");
    }
    return json_response(200, model_stats_json(versions));
  }
  const std::shared_ptr<ServedModel> served = models_->find(route.model, route.version);
  if (route.kind == RouteKind::kModelConfig) {
    return HttpResponse{200, "application/json", {}, model_config_json(served->config())};
  }
  return json_response(200, model_metadata_json(models_->loaded(route.model), *served));
}

void InferenceServer::handle_repository(const Route& route, const HttpRequest& request,
                                        Responder respond) {
  try {
    if (route.kind == RouteKind::kRepositoryIndex) {
      const nlohmann::json body = repository_body(request, nullptr);
      const bool ready_only = body.value("ready", false);
      return respond(json_response(200, repository_index_json(models_->index(ready_only))));
    }
    if (options_.mode != ModelControlMode::kExplicit) {
      fail(ErrorCode::kInvalidArgument,
           "loading and unloading models needs --model-control-mode=explicit (this server "
           "runs with '{}')",
           mode_name(options_.mode));
    }
    const bool load = route.kind == RouteKind::kRepositoryLoad;
    repository_body(request, load ? nullptr : "unload_dependents");
    post_control([this, load, name = route.model, respond] {
      try {
        if (load) {
          models_->load(name);
        } else {
          models_->unload(name);
        }
        respond(json_response(200, nlohmann::json::object()));
      } catch (const Error& error) {
        respond(error_response(error));
      }
    });
  } catch (const Error& error) {
    respond(error_response(error));
  }
}

bool InferenceServer::drain() {
  const auto deadline =
      SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(
                               std::chrono::duration<double>(options_.exit_timeout_seconds));
  draining_ = true;
  models_->retire_all();
  auto busy = [this] {
    size_t pending = http_->requests_in_flight();
    for (const auto& served : models_->loaded()) {
      pending += served->scheduler().queued() + served->scheduler().running();
    }
    return pending;
  };
  while (busy() > 0 && SteadyClock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const size_t left = busy();
  if (left == 0) return true;
  log_.warning(
      fmt::format("exit timeout: {} request(s) still in flight; refusing those queued", left));
  for (const auto& served : models_->loaded()) {
    served->scheduler().fail_queued(Error(ErrorCode::kUnavailable, "the server is shutting down"));
  }
  return false;
}

}  // namespace inferlab::serve
