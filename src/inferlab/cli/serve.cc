// `inferlab serve`: a KServe v2 REST server over a Triton-layout model
// repository, with Triton's flag names (docs/serve.md).
#ifdef INFERLAB_HAS_SERVE

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "inferlab/backends/registry.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/serve/server/inference_server.h"

namespace inferlab::cli {

namespace {

struct ServeFlags {
  serve::ServerOptions server;
  std::string repository;
  std::string control_mode = "none";
  int grpc_port = -1;
  int metrics_port = -1;
  int log_verbose = 0;
  bool access_log = false;
  double http_timeout_seconds = 60;
  int64_t inline_below_us = 100;
  std::string json_target;
};

serve::ModelControlMode parse_mode(const std::string& mode) {
  if (mode == "poll") return serve::ModelControlMode::kPoll;
  if (mode == "explicit") return serve::ModelControlMode::kExplicit;
  return serve::ModelControlMode::kNone;
}

// What the server loaded and where it listens, for people and scripts.
nlohmann::json startup_report(const serve::InferenceServer& server, const ServeFlags& flags) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& served : server.models().loaded()) {
    int instances = 0;
    for (const auto& group : served->config().instance_group()) instances += group.count();
    models.push_back({{"name", served->name()},
                      {"version", served->version()},
                      {"backend", served->platform()},
                      {"instances", instances},
                      {"ready", served->ready()}});
  }
  const std::string url =
      fmt::format("http://{}:{}", flags.server.http_address, server.http_port());
  return {{"http", url},
          {"http_port", server.http_port()},
          {"model_repository", flags.server.repository.string()},
          {"model_control_mode", flags.control_mode},
          {"models", models}};
}

void print_startup(const nlohmann::json& report) {
  std::cout << fmt::format("model repository {} (model control mode {})\n",
                           report["model_repository"].get<std::string>(),
                           report["model_control_mode"].get<std::string>());
  for (const auto& model : report["models"]) {
    std::cout << fmt::format("  {} version {}: {}, {} instance(s), {}\n",
                             model["name"].get<std::string>(), model["version"].get<int64_t>(),
                             model["backend"].get<std::string>(), model["instances"].get<int>(),
                             model["ready"].get<bool>() ? "ready" : "not ready");
  }
  std::cout << fmt::format("listening on {} (KServe v2 REST)\n", report["http"].get<std::string>())
            << std::flush;
}

int run_serve(ServeFlags& flags, InterruptRouter& interrupts) {
  if (flags.grpc_port >= 0 || flags.metrics_port >= 0) {
    throw UsageError(
        "--grpc-port and --metrics-port: gRPC and Prometheus metrics are not in this version "
        "of inferlab serve yet (docs/serve.md); it serves REST on --http-port");
  }
  flags.server.repository = std::filesystem::absolute(flags.repository);
  flags.server.mode = parse_mode(flags.control_mode);
  if (!flags.server.load_models.empty() &&
      flags.server.mode != serve::ModelControlMode::kExplicit) {
    throw UsageError(
        "--load-model needs --model-control-mode=explicit (the other modes load every model)");
  }
  const auto timeout =
      std::chrono::milliseconds(static_cast<int64_t>(flags.http_timeout_seconds * 1000));
  flags.server.load_defaults.inline_below = std::chrono::microseconds(flags.inline_below_us);
  flags.server.http_limits.header_timeout = timeout;
  flags.server.http_limits.body_timeout = timeout;

  // Signals arrive from here on: the first drains, a second one ends the
  // process at once (main's default action).
  std::mutex mutex;
  std::condition_variable signalled;
  int signals_received = 0;
  InterruptHandler on_interrupt(interrupts, [&](int) {
    std::lock_guard lock(mutex);
    if (++signals_received > 1) return false;
    signalled.notify_all();
    return true;
  });

  serve::ServerLog log(std::cerr, flags.log_verbose, flags.access_log);
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  serve::InferenceServer server(flags.server, registry, log);
  const nlohmann::json report = startup_report(server, flags);
  if (flags.json_target != "-") print_startup(report);
  if (!flags.json_target.empty()) write_json(report, flags.json_target);

  {
    std::unique_lock lock(mutex);
    signalled.wait(lock, [&] { return signals_received > 0; });
  }
  log.info(
      fmt::format("shutting down: not ready, refusing new inferences, waiting up to {} s for "
                  "those accepted",
                  flags.server.exit_timeout_seconds));
  const bool clean = server.drain();
  log.info(clean ? "every accepted request was answered; exiting"
                 : "the exit timeout passed with requests unanswered; exiting");
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& root, std::vector<Command>& commands,
                       InterruptRouter& interrupts) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* app = root.add_subcommand(
      "serve", "Serve a model repository over the KServe v2 / Open Inference Protocol (REST)");
  app->add_option("--model-repository", flags->repository,
                  "Triton-layout repository: DIR/<model>/[config.pbtxt] and numbered version "
                  "folders holding model.onnx, model.pt or an InferLab model directory")
      ->required();
  app->add_option("--http-port", flags->server.http_port, "HTTP port (0: a free port)")
      ->capture_default_str();
  app->add_option("--http-address", flags->server.http_address,
                  "Address to listen on (0.0.0.0 for every interface)")
      ->capture_default_str();
  app->add_option("--http-thread-count", flags->server.http_threads,
                  "Threads serving HTTP connections")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app->add_option("--http-max-input-size", flags->server.http_limits.max_body_bytes,
                  "Largest request body in bytes (beyond: 413)")
      ->capture_default_str();
  app->add_option("--http-timeout-secs", flags->http_timeout_seconds,
                  "A client gets this long to send each request's headers, then its body")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--grpc-port", flags->grpc_port, "gRPC port (not in this version yet)");
  app->add_option("--metrics-port", flags->metrics_port, "Metrics port (not in this version yet)");
  app->add_option("--model-control-mode", flags->control_mode,
                  "none: load every model at start; poll: also reload what changes on disk; "
                  "explicit: load and unload through the repository API")
      ->check(CLI::IsMember({"none", "poll", "explicit"}))
      ->capture_default_str();
  app->add_option("--load-model", flags->server.load_models,
                  "Model to load at start in explicit mode (repeatable; * for all)");
  app->add_option("--repository-poll-secs", flags->server.poll_seconds,
                  "Seconds between repository polls (poll mode)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--exit-timeout-secs", flags->server.exit_timeout_seconds,
                  "On SIGTERM/SIGINT, how long accepted requests get to finish")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--strict-readiness", flags->server.strict_readiness,
                  "Ready only when every model is ready (false: when the server is up)")
      ->capture_default_str();
  app->add_option("--exit-on-error", flags->server.exit_on_error,
                  "Exit when a model fails to load at start (false: serve the others)")
      ->capture_default_str();
  app->add_option("--max-queue-size", flags->server.load_defaults.max_queue_size,
                  "Requests waiting per model and priority level when its config sets no "
                  "max_queue_size (beyond: refused at once)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--queue-full-status", flags->server.infer.queue_full_status,
                  "Status for a request refused by a full queue: 503, or 429 with Retry-After")
      ->check(CLI::IsMember({503, 429}))
      ->capture_default_str();
  app->add_option("--retry-after-secs", flags->server.infer.retry_after_seconds,
                  "Retry-After with --queue-full-status 429")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option(
         "--inline-below-us", flags->inline_below_us,
         "A request of a model whose mean compute is under this many microseconds runs on the "
         "I/O thread that read it when an instance is idle and nothing waits, saving two thread "
         "handoffs (default 100; 0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app->add_option("--log-verbose", flags->log_verbose, "Verbose log level (0: off)")
      ->capture_default_str();
  app->add_flag("--access-log", flags->access_log, "One line per HTTP request on standard error");
  app->add_option("--json", flags->json_target,
                  "Write what was loaded and where the server listens as JSON to FILE (- for "
                  "stdout) once it listens");
  app->footer(
      "Example:\n"
      "  inferlab serve --model-repository models/ --http-port 8000\n"
      "  curl localhost:8000/v2/health/ready\n"
      "  curl -d '{\"inputs\":[{\"name\":\"x\",\"shape\":[2],\"datatype\":\"FP32\","
      "\"data\":[1,2]}]}' localhost:8000/v2/models/add/infer\n"
      "SIGTERM or SIGINT drains: readiness goes false, accepted requests finish within\n"
      "--exit-timeout-secs, then the server exits 0 (a second signal ends it at once).");
  commands.push_back({app, [flags, &interrupts] { return run_serve(*flags, interrupts); }});
}

}  // namespace inferlab::cli

#endif  // INFERLAB_HAS_SERVE
