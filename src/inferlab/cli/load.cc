// `inferlab load`: the measuring client of `inferlab serve` (and of any
// KServe v2 server): closed loop at a concurrency or open loop at a rate,
// over keep-alive HTTP or, with --in-process, straight into the model's
// instances, so the server's cost is the difference of two runs of this one
// command. The measuring itself lives in src/inferlab/loadgen/.
#ifdef INFERLAB_HAS_LOADGEN

#include <unistd.h>

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "inferlab/backends/registry.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/core/error.h"
#include "inferlab/loadgen/load_report.h"
#include "inferlab/loadgen/targets.h"

namespace inferlab::cli {

namespace {

struct LoadFlags {
  std::string url;
  std::string model;
  std::string model_version;
  std::string in_process;
  std::string backend = "native";
  int instances = 1;
  int threads = 0;
  std::vector<std::string> backend_options;
  loadgen::LoadOptions load;
  std::string inputs_dir;
  std::vector<std::string> shapes;
  uint64_t seed = 0;
  std::string body = "binary";
  double timeout_s = 30;
  std::string json_target;
  std::string save_body;
};

// The exact command line: add_load_command is not handed argv, and
// /proc/self/cmdline holds it unchanged.
std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!line.empty() && line.back() == '\0') line.pop_back();
  for (char& c : line)
    if (c == '\0') c = ' ';
  return line;
}

void check_flags(const LoadFlags& flags) {
  if (flags.url.empty() == flags.in_process.empty())
    throw UsageError("load: give a server URL or --in-process MODEL (one of them)");
  if (!flags.url.empty() && flags.model.empty())
    throw UsageError("load: --model NAME is required with a URL");
  if (!flags.in_process.empty() && !flags.save_body.empty())
    throw UsageError("load: --save-body writes an HTTP body; it needs a URL, not --in-process");
  if (flags.in_process.empty() && (flags.backend != "native" || flags.instances != 1 ||
                                   flags.threads != 0 || !flags.backend_options.empty()))
    throw UsageError(
        "load: --backend, --instances, --threads and --backend-option go with "
        "--in-process");
}

nlohmann::json settings_json(const LoadFlags& flags) {
  const loadgen::LoadOptions& load = flags.load;
  return {{"concurrency", load.concurrency},
          {"rate", load.rate},
          {"connections", load.connections},
          {"warmup_s", load.warmup_s},
          {"duration_s", load.duration_s},
          {"requests", load.requests},
          {"seed", flags.seed},
          {"timeout_s", flags.timeout_s},
          {"inputs", flags.inputs_dir},
          {"shapes", flags.shapes},
          {"model_version", flags.model_version}};
}

nlohmann::json inputs_json(const loadgen::NamedTensors& tensors) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& [name, tensor] : tensors) {
    inputs.push_back({{"name", name},
                      {"datatype", std::string(loadgen::kserve_datatype(tensor.dtype()))},
                      {"shape", tensor.shape().to_vector()}});
  }
  return inputs;
}

// Writes FILE (the body) and FILE.headers (the headers it needs), which
// tools/wrk/infer_binary.lua sends unchanged.
void save_body(const std::string& path, const loadgen::InferBody& body) {
  std::ofstream out(path, std::ios::binary);
  out << body.bytes;
  std::ofstream headers(path + ".headers", std::ios::binary);
  headers << "Content-Type: " << body.content_type << "\n";
  if (body.header_length > 0)
    headers << "Inference-Header-Content-Length: " << body.header_length << "\n";
  if (!out || !headers) fail(ErrorCode::kIo, "--save-body: cannot write '{}'", path);
}

loadgen::LoadProgress progress_printer(const LoadFlags& flags) {
  if (!isatty(STDERR_FILENO) || flags.json_target == "-") return {};
  return [](double elapsed_s, int64_t measured) {
    if (elapsed_s < 0)
      fmt::print(stderr, "\r\033[Kwarming up");
    else
      fmt::print(stderr, "\r\033[Kmeasuring: {:.1f} s, {} requests", elapsed_s, measured);
  };
}

int finish(const LoadFlags& flags, nlohmann::json report, const loadgen::LoadResult& result,
           int64_t samples) {
  if (progress_printer(flags)) fmt::print(stderr, "\r\033[K");
  report["command_line"] = own_command_line();
  report["settings"] = settings_json(flags);
  report["result"] = loadgen::result_json(result, samples);
  if (flags.json_target != "-") loadgen::print_report(stdout, report);
  if (!flags.json_target.empty()) write_json(report, flags.json_target);
  if (result.successes > 0) return 0;
  fmt::print(stderr, "error: no request succeeded ({} sent)\n", result.requests);
  return 1;
}

int run_remote(const LoadFlags& flags) {
  const loadgen::Url url = loadgen::Url::parse(flags.url);
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(flags.timeout_s * 1000));
  const loadgen::BodyFormat format = loadgen::parse_body_format(flags.body);
  const std::string metadata_text =
      loadgen::fetch_ok(url, loadgen::model_path(flags.model, flags.model_version), timeout);
  const nlohmann::json metadata = nlohmann::json::parse(metadata_text, nullptr, false);
  if (metadata.is_discarded())
    fail(ErrorCode::kInvalidArgument, "model metadata of '{}' is not JSON", flags.model);
  const std::vector<model::ValueInfo> declared = loadgen::inputs_from_metadata(metadata);
  const loadgen::NamedTensors tensors = loadgen::load_inputs(
      declared, flags.inputs_dir, parse_shape_flags(flags.shapes), flags.seed, nullptr);
  const loadgen::InferBody body = loadgen::encode_infer_body(tensors, format);
  if (!flags.save_body.empty()) {
    save_body(flags.save_body, body);
    fmt::print("wrote {} ({} bytes) and {}.headers\n", flags.save_body, body.bytes.size(),
               flags.save_body);
    return 0;
  }
  auto request = std::make_shared<loadgen::HttpRequestBytes>(
      loadgen::make_http_request("POST", url, loadgen::infer_path(flags.model, flags.model_version),
                                 body.content_type, body.extra_headers(), body.bytes));
  const loadgen::LoadResult result = loadgen::run_load(
      flags.load, loadgen::http_channels(url, request, timeout), progress_printer(flags));
  nlohmann::json report = {
      {"target", fmt::format("http://{}{}{}", url.host_header(), url.prefix,
                             loadgen::infer_path(flags.model, flags.model_version))},
      {"model", flags.model},
      {"in_process", false},
      {"inputs", inputs_json(tensors)},
      {"body",
       {{"format", loadgen::body_format_name(format)},
        {"bytes", body.bytes.size()},
        {"header_length", body.header_length},
        {"summary",
         fmt::format("{} ({} bytes)", loadgen::body_format_name(format), body.bytes.size())}}}};
  return finish(flags, std::move(report), result, loadgen::samples_per_request(declared, tensors));
}

int run_in_process(const LoadFlags& flags) {
  const backends::ModelSource source = backends::ModelSource::resolve(flags.in_process);
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  std::shared_ptr<backends::Backend> backend = registry.get(flags.backend);
  backends::BackendOptions options;
  options.input_shapes = parse_shape_flags(flags.shapes);
  for (const auto& [key, value] : parse_name_values("--backend-option", flags.backend_options))
    options.settings[key] = value;
  const backends::InstanceSet instances =
      backends::InstanceSet::open(*backend, source, options, flags.instances, flags.threads);
  const loadgen::NamedTensors tensors = loadgen::load_inputs(
      instances.model(0).inputs(), flags.inputs_dir, options.input_shapes, flags.seed, &source);
  auto inputs = std::make_shared<backends::TensorMap>(tensors.begin(), tensors.end());
  const loadgen::LoadResult result = loadgen::run_load(
      flags.load, loadgen::model_channels(instances, inputs), progress_printer(flags));
  nlohmann::json report = {{"target", "in process"},
                           {"model", flags.in_process},
                           {"in_process", true},
                           {"backend", flags.backend},
                           {"version", backend->info().version},
                           {"instances", instances.count()},
                           {"threads_per_instance", instances.threads_per_instance()},
                           {"inputs", inputs_json(tensors)}};
  return finish(flags, std::move(report), result,
                loadgen::samples_per_request(instances.model(0).inputs(), tensors));
}

int run_load_command(const LoadFlags& flags) {
  check_flags(flags);
  return flags.in_process.empty() ? run_remote(flags) : run_in_process(flags);
}

}  // namespace

void add_load_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<LoadFlags>();
  CLI::App* app = root.add_subcommand(
      "load", "Measure an inference server (KServe v2 REST) or a model in process under load");
  app->add_option("url", flags->url, "Server URL, e.g. http://127.0.0.1:8000");
  app->add_option("--model", flags->model, "Model name on the server");
  app->add_option("--model-version", flags->model_version, "Model version (default: the server's)");
  app->add_option("--in-process", flags->in_process,
                  "Instead of a server: run this model (.onnx, .pt or model directory) in this "
                  "process from the sending threads, with no network");
  app->add_option("--backend", flags->backend, "With --in-process: the engine (default native)");
  app->add_option("--instances", flags->instances,
                  "With --in-process: instances, as the server opens them (default 1)")
      ->check(CLI::PositiveNumber);
  app->add_option("--threads", flags->threads,
                  "With --in-process: threads per instance (default 0: cores / instances)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--backend-option", flags->backend_options,
                  "With --in-process: a backend setting KEY=VALUE (repeatable)");
  CLI::Option* concurrency =
      app->add_option("--concurrency", flags->load.concurrency,
                      "Closed loop: clients sending back to back, one connection each (default 1)")
          ->check(CLI::PositiveNumber);
  CLI::Option* rate =
      app->add_option("--rate", flags->load.rate,
                      "Open loop: requests per second at constant intervals; latency counts from "
                      "each request's scheduled time")
          ->check(CLI::PositiveNumber);
  concurrency->excludes(rate);
  app->add_option("--connections", flags->load.connections,
                  "Open loop: connections (sending threads) in the pool (default 64)")
      ->check(CLI::PositiveNumber);
  app->add_option("--duration", flags->load.duration_s, "Seconds measured (default 10)")
      ->check(CLI::PositiveNumber);
  app->add_option("--warmup", flags->load.warmup_s, "Seconds sent first, not counted (default 1)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--requests", flags->load.requests,
                  "Measure this many requests instead of a duration")
      ->check(CLI::PositiveNumber);
  app->add_option("--inputs", flags->inputs_dir,
                  "Directory with <input>.npy per input (default: generated from --seed)");
  app->add_option("--shape", flags->shapes, "Fix an input's dynamic dims: NAME=DIMS (repeatable)");
  app->add_option("--seed", flags->seed, "Seed of the generated inputs (default 0)");
  app->add_option("--body", flags->body,
                  "Request body: binary (Triton's binary_tensor_data) or json")
      ->check(CLI::IsMember({"binary", "json"}));
  app->add_option("--timeout", flags->timeout_s,
                  "Seconds a connect or a read may wait (default 30)")
      ->check(CLI::PositiveNumber);
  app->add_option("--json", flags->json_target,
                  "Also write every figure as JSON to FILE ('-': stdout)");
  app->add_option("--save-body", flags->save_body,
                  "Write the request body to FILE and its headers to FILE.headers, then exit "
                  "(for tools/wrk/infer_binary.lua)");
  app->footer(
      "Examples:\n"
      "  inferlab load http://127.0.0.1:8000 --model mobilenet --concurrency 8 --duration 10\n"
      "  inferlab load http://127.0.0.1:8000 --model add --rate 500 --body json --json out.json\n"
      "  inferlab load --in-process mobilenet_v2.onnx --instances 2 --concurrency 8\n"
      "Exit status: 0 when any request succeeded (errors are counted results), 1 when none did.");
  commands.push_back(Command{app, [flags] { return run_load_command(*flags); }});
}

}  // namespace inferlab::cli

#endif  // INFERLAB_HAS_LOADGEN
