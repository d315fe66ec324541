// The bench loop. Every backend runs in its own worker (memory and load
// time are its own); workers wait blocked on their channel while another is
// measured, and the CPU they use anyway is recorded per round.
#include "inferlab/bench/bench_runner.h"

#include <algorithm>
#include <ctime>
#include <random>

#include "inferlab/bench/backend_measurement.h"
#include "inferlab/bench/bench_summary.h"
#include "inferlab/bench/environment_record.h"
#include "inferlab/core/file_hash.h"
#include "inferlab/inputs/input_files.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"
#include "inferlab/runtime/compute_threads.h"

namespace inferlab::bench {

namespace {

constexpr int kSchemaVersion = 1;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string choose_reference(const BenchOptions& options, backends::BackendRegistry& registry) {
  if (!options.reference.empty()) return options.reference;
  return registry.probe("onnxruntime").available ? "onnxruntime" : "native";
}

nlohmann::json model_record(const backends::ModelSource& source) {
  nlohmann::json hashes = nlohmann::json::object();
  if (!source.onnx_path.empty()) hashes["onnx"] = file_sha256(source.onnx_path);
  if (!source.torchscript_path.empty())
    hashes["torchscript"] = file_sha256(source.torchscript_path);
  const std::string primary = hashes.contains("onnx") ? hashes["onnx"].get<std::string>()
                              : hashes.contains("torchscript")
                                  ? hashes["torchscript"].get<std::string>()
                                  : "";
  return {{"path", source.manifest_path.empty() ? source.onnx_path + source.torchscript_path
                                                : source.directory},
          {"name", source.name},
          {"sha256", primary},
          {"artifact_hashes", hashes}};
}

// The --input-range ranges: {"NAME": [low, high]}.
nlohmann::json input_ranges_json(const BenchOptions& options) {
  nlohmann::json ranges = nlohmann::json::object();
  for (const auto& [name, range] : options.input_ranges) ranges[name] = {range.low, range.high};
  return ranges;
}

nlohmann::json settings_record(const BenchOptions& options, const std::string& reference) {
  return {{"rounds", options.rounds},
          {"min_iterations", options.min_iterations},
          {"min_round_ms", options.min_round_ms},
          {"warmup_max_runs", options.warmup_max_runs},
          {"warmup_max_ms", options.warmup_max_ms},
          {"settle_ms", options.settle_ms},
          {"call_timeout_s", options.call_timeout_s},
          {"plan_cache", options.plan_cache_dir},
          {"order", options.shuffle ? "shuffled" : "interleaved"},
          {"seed", options.seed},
          {"reference", reference},
          {"reference_options", {{"opt_level", 0}}},
          {"inputs", options.inputs_dir.empty() ? "random seed " + std::to_string(options.seed)
                                                : "files in " + options.inputs_dir},
          {"input_ranges", input_ranges_json(options)},
          {"precision", options.precision},
          {"opt_level", options.opt_level},
          {"max_isa", options.max_isa},
          {"backends", options.backends},
          {"backend_settings", options.backend_settings},
          {"swept", swept_variables(options)}};
}

struct PointContext {
  const BenchOptions& options;
  const BenchPoint& point;
  const backends::ModelSource& source;
  backends::BackendRegistry& registry;
  const std::string& reference;
  const ProgressCallback& progress;
  std::string label;  // "point 1/3"
  size_t index = 0;   // of the point, from 0
  size_t points = 1;  // in the sweep
};

void report(const PointContext& context, const std::string& status) {
  if (context.progress) context.progress(context.label + "  " + status);
}

backends::BackendOptions backend_options(const PointContext& context,
                                         const std::map<std::string, Shape>& shapes,
                                         const std::string& backend) {
  backends::BackendOptions options;
  const auto settings = context.options.backend_settings.find(backend);
  if (settings != context.options.backend_settings.end()) options.settings = settings->second;
  options.threads = context.point.threads;
  options.opt_level = context.options.opt_level;
  options.max_isa = context.options.max_isa;
  options.precision = context.options.precision;
  options.input_shapes = shapes;
  options.call_timeout_s = context.options.call_timeout_s;
  return options;
}

// Reference outputs: the reference engine with optimizations off.
backends::TensorMap reference_outputs(const PointContext& context,
                                      const std::map<std::string, Shape>& shapes,
                                      const backends::TensorMap& inputs, std::string& error) {
  BackendMeasurement reference(context.reference);
  backends::BackendOptions options = backend_options(context, shapes, context.reference);
  options.opt_level = 0;
  reference.open(context.registry, context.source, options);
  reference.prepare(inputs);
  error = reference.error();
  return reference.outputs();
}

nlohmann::json accuracy_record(const PointContext& context, const backends::TensorMap& outputs,
                               const backends::TensorMap& reference) {
  const Tolerance tolerance = context.options.tolerance
                                  ? *context.options.tolerance
                                  : default_tolerance(context.options.precision);
  nlohmann::json record = {
      {"reference", context.reference}, {"passed", true}, {"outputs", nlohmann::json::array()}};
  for (const auto& [name, expected] : reference) {
    bool class_scores = std::find(context.options.classifier_outputs.begin(),
                                  context.options.classifier_outputs.end(),
                                  name) != context.options.classifier_outputs.end();
    for (const backends::OutputSpec& spec : context.source.outputs)
      class_scores |= spec.info.name == name && spec.class_scores;
    auto actual = outputs.find(name);
    OutputAccuracy accuracy;
    if (actual == outputs.end()) {
      accuracy.name = name;
      accuracy.failure = "output missing";
    } else {
      accuracy = compare_output(name, actual->second, expected, tolerance, class_scores);
    }
    record["passed"] = record["passed"].get<bool>() && accuracy.passed;
    record["outputs"].push_back(accuracy_json(accuracy));
  }
  return record;
}

std::vector<int> round_order(size_t count, bool shuffle, std::mt19937_64& generator) {
  std::vector<int> order(count);
  for (size_t i = 0; i < count; ++i) order[i] = static_cast<int>(i);
  if (shuffle) std::shuffle(order.begin(), order.end(), generator);
  return order;
}

void run_rounds(const PointContext& context, std::vector<BackendMeasurement>& measurements,
                const std::vector<backends::TensorMap>& samples) {
  std::mt19937_64 generator(context.options.seed);
  for (int round = 0; round < context.options.rounds; ++round) {
    const std::vector<int> order =
        round_order(measurements.size(), context.options.shuffle, generator);
    for (size_t position = 0; position < order.size(); ++position) {
      BackendMeasurement& measurement = measurements[order[position]];
      if (!measurement.ok()) continue;
      report(context,
             fmt::format("round {}/{}  {}", round + 1, context.options.rounds, measurement.name()));
      std::vector<pid_t> idle;
      for (const BackendMeasurement& other : measurements)
        if (&other != &measurement && other.ok() && other.worker_pid() > 0)
          idle.push_back(other.worker_pid());
      if (samples.size() > 1) measurement.model()->bind(samples[round % samples.size()]);
      RoundRecord plan;
      plan.index = round;
      plan.order = static_cast<int>(position);
      plan.settle_ms = context.options.settle_ms;
      measurement.run_round(plan, context.options.min_iterations, context.options.min_round_ms,
                            idle);
    }
  }
}

// The point's inputs by the inputs library's rules, as `run` makes them:
// samples from --inputs, else one fixed-seed random sample.
std::vector<backends::TensorMap> point_inputs(const PointContext& context,
                                              const std::vector<model::ValueInfo>& inputs,
                                              const std::map<std::string, Shape>& shapes) {
  const BenchOptions& options = context.options;
  std::vector<backends::TensorMap> samples;
  if (!options.inputs_dir.empty()) {
    samples = inputs::samples_from_directory(options.inputs_dir, inputs);
  } else {
    const auto ranges = inputs::input_ranges(inputs, options.input_ranges, context.source);
    samples = {inputs::random_inputs(inputs, shapes, ranges, options.seed)};
  }
  if (!options.save_inputs_dir.empty()) {
    const std::string dir =
        context.points == 1 ? options.save_inputs_dir
                            : fmt::format("{}/point{}", options.save_inputs_dir, context.index + 1);
    inputs::write_input_files(dir, samples.front());
  }
  return samples;
}

nlohmann::json point_json(const BenchPoint& point, const std::map<std::string, Shape>& shapes) {
  // threads_used: what 0 (one per core) meant on the measuring machine.
  nlohmann::json json = {{"threads", point.threads},
                         {"threads_used", runtime::resolve_threads(point.threads)},
                         {"shapes", nlohmann::json::object()}};
  json["batch"] = point.batch ? nlohmann::json(*point.batch) : nlohmann::json(nullptr);
  for (const auto& [name, shape] : shapes) json["shapes"][name] = shape;
  return json;
}

// Whether `source` has the artifact the backend runs (ONNX, TorchScript, Python).
bool has_artifact(const std::string& backend, const backends::ModelSource& source) {
  if (backend == "libtorch") return !source.torchscript_path.empty();
  if (backend == "python") return source.python.has_value() || !source.torchscript_path.empty();
  return !source.onnx_path.empty();
}

nlohmann::json run_point(const PointContext& context) {
  std::vector<BackendMeasurement> measurements;
  std::vector<std::string> no_artifact;
  for (const std::string& name : context.options.backends) {
    if (has_artifact(context.registry.engine_of(name), context.source))
      measurements.emplace_back(name);
    else
      no_artifact.push_back(name);
  }
  for (BackendMeasurement& measurement : measurements) {
    report(context, "opening " + measurement.name());
    backends::BackendOptions options =
        backend_options(context, context.point.shapes, measurement.name());
    if (context.registry.engine_of(measurement.name()) == "native")
      options.plan_cache_dir = context.options.plan_cache_dir;
    measurement.open(context.registry, context.source, options);
  }
  const auto first_ok = std::find_if(measurements.begin(), measurements.end(),
                                     [](const BackendMeasurement& m) { return m.ok(); });
  if (first_ok == measurements.end()) {
    std::string errors;
    for (const BackendMeasurement& m : measurements) errors += "; " + m.name() + ": " + m.error();
    fail(ErrorCode::kRuntime, "bench: no backend could open the model{}", errors);
  }
  const std::map<std::string, Shape> shapes = inputs::resolve_input_shapes(
      first_ok->model()->inputs(), context.point.shapes, context.point.batch);
  const std::vector<backends::TensorMap> samples =
      point_inputs(context, first_ok->model()->inputs(), shapes);
  for (BackendMeasurement& measurement : measurements) {
    report(context, "cold start " + measurement.name());
    measurement.prepare(samples.front());
  }
  report(context, "reference outputs (" + context.reference + ", opt level 0)");
  std::string reference_error;
  const backends::TensorMap expected =
      reference_outputs(context, shapes, samples.front(), reference_error);
  for (BackendMeasurement& measurement : measurements) {
    report(context, "warm-up " + measurement.name());
    measurement.warm_up(context.options.warmup_max_runs, context.options.warmup_max_ms);
  }
  run_rounds(context, measurements, samples);
  const int64_t batch =
      shapes.empty() || shapes.begin()->second.empty() ? 1 : shapes.begin()->second[0];
  nlohmann::json backends_json = nlohmann::json::array();
  for (BackendMeasurement& measurement : measurements) {
    measurement.finish();
    nlohmann::json backend = measurement.raw_json();
    backend["status"] = measurement.ok() ? "ok" : "error";
    backend["error"] =
        measurement.ok() ? nlohmann::json(nullptr) : nlohmann::json(measurement.error());
    if (measurement.ok()) {
      add_latency_statistics(backend, batch, context.options.seed);
      backend["accuracy"] = reference_error.empty()
                                ? accuracy_record(context, measurement.outputs(), expected)
                                : nlohmann::json({{"reference", context.reference},
                                                  {"error", reference_error},
                                                  {"passed", false}});
    }
    backends_json.push_back(std::move(backend));
  }
  for (const std::string& name : no_artifact) {
    backends_json.push_back(
        {{"name", name},
         {"status", "no_artifact"},
         {"error", "model '" + context.source.name + "' has no artifact for " + name}});
  }
  for (nlohmann::json& backend : backends_json) {
    for (const nlohmann::json& reference : backends_json) {
      if (reference["name"] == context.reference && reference["status"] == "ok" &&
          backend["status"] == "ok" && backend["name"] != context.reference)
        add_ratio_to_reference(backend, reference, context.options.seed);
    }
  }
  return {{"point", point_json(context.point, shapes)}, {"backends", backends_json}};
}

}  // namespace

nlohmann::json run_bench(const BenchOptions& options, backends::BackendRegistry& registry,
                         const ProgressCallback& progress) {
  if (options.backends.empty()) fail(ErrorCode::kInvalidArgument, "bench: no backends given");
  if (options.rounds < 1 || options.min_iterations < 1)
    fail(ErrorCode::kInvalidArgument, "bench: --rounds and --min-iterations must be >= 1");
  for (const std::string& name : options.backends)
    registry.get(name, backends::Placement::kChildProcess);
  const std::vector<BenchPoint> points = sweep_points(options);
  const backends::ModelSource source = backends::ModelSource::resolve(options.model_path);
  const std::string reference = choose_reference(options, registry);
  nlohmann::json backend_versions = nlohmann::json::object();
  for (const std::string& name : options.backends) {
    const backends::BackendInfo info = registry.probe(name);
    backend_versions[name] = {{"available", info.available},
                              {"version", info.version},
                              {"configuration", info.configuration}};
  }
  nlohmann::json result = {
      {"schema", "inferlab-bench"},
      {"schema_version", kSchemaVersion},
      {"created", utc_now()},
      {"command", options.command_line},
      {"model", model_record(source)},
      {"environment", {{"machine", machine_record()}, {"backends", backend_versions}}},
      {"settings", settings_record(options, reference)},
      {"points", nlohmann::json::array()}};
  for (size_t i = 0; i < points.size(); ++i) {
    const PointContext context{options,
                               points[i],
                               source,
                               registry,
                               reference,
                               progress,
                               fmt::format("point {}/{}", i + 1, points.size()),
                               i,
                               points.size()};
    result["points"].push_back(run_point(context));
  }
  return result;
}

}  // namespace inferlab::bench
