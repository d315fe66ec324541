// `inferlab run MODEL`: runs a model once on given or generated inputs and
// summarizes each output (dtype, shape, min/max/mean, first values), with
// optional .npy files per output and a JSON report.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "inferlab/backends/registry.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/cli/input_tensors.h"
#include "inferlab/core/npy.h"
#include "inferlab/inputs/input_files.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"

namespace inferlab::cli {

namespace {

constexpr int64_t kShownValues = 6;

struct RunFlags {
  std::string model_path;
  std::string backend = "native";
  std::vector<std::string> inputs;
  std::vector<std::string> shapes;
  std::vector<std::string> values;
  std::vector<std::string> ranges;
  std::vector<std::string> settings;
  std::vector<std::string> extra_outputs;
  std::string output_dir;
  std::string save_inputs_dir;
  std::string json_target;
  int threads = 0;
  int opt_level = 3;
  std::string max_isa = "auto";
  uint64_t seed = 0;
  double call_timeout_s = 0;
  std::string plan_cache_dir;
};

struct PreparedInput {
  Tensor tensor;
  std::string source;  // "file x.npy", "value 3", "random [0, 1) seed 0"
};

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

void check_names_are_inputs(const std::map<std::string, std::string>& named, const char* flag,
                            const backends::Model& model, const std::string& model_path) {
  for (const auto& entry : named) {
    const std::string& name = entry.first;
    const auto& inputs = model.inputs();
    const bool found =
        std::any_of(inputs.begin(), inputs.end(),
                    [&](const model::ValueInfo& input) { return input.name == name; });
    if (!found) {
      fail(ErrorCode::kInvalidArgument, "{} names '{}', which is not an input of {}", flag, name,
           model_path);
    }
  }
}

// Each input from its file (--input), its value (--value), or random by the
// inputs library's rules (src/inferlab/inputs/: shape, range, seed), which
// `bench` and `profile` follow too: the same seed feeds the same bytes.
std::map<std::string, PreparedInput> prepare_inputs(const RunFlags& flags,
                                                    const backends::ModelSource& source,
                                                    const backends::Model& model) {
  const auto files = parse_name_values("--input", flags.inputs);
  const auto values = parse_name_values("--value", flags.values);
  check_names_are_inputs(files, "--input", model, flags.model_path);
  check_names_are_inputs(values, "--value", model, flags.model_path);
  const auto shapes = parse_shape_flags(flags.shapes);
  inputs::check_given_shapes(model.inputs(), shapes);
  const auto ranges = inputs::input_ranges(model.inputs(), parse_range_flags(flags.ranges), source);
  std::map<std::string, PreparedInput> prepared;
  for (const model::ValueInfo& input : model.inputs()) {
    if (auto file = files.find(input.name); file != files.end()) {
      prepared[input.name] = {inputs::read_tensor_file(file->second), "file " + file->second};
      continue;
    }
    const Shape shape = inputs::resolve_input_shape(input, shapes);
    if (auto value = values.find(input.name); value != values.end()) {
      prepared[input.name] = {filled_tensor(input, shape, value->second), "value " + value->second};
      continue;
    }
    const inputs::ValueRange& range = ranges.at(input.name);
    prepared[input.name] = {
        inputs::random_tensor(input, shape, range, flags.seed),
        input.dtype == DataType::kBool
            ? fmt::format("random seed {}", flags.seed)
            : fmt::format("random [{:g}, {:g}) seed {}", range.low, range.high, flags.seed)};
  }
  return prepared;
}

struct OutputStats {
  double min = 0.0, max = 0.0, mean = 0.0;
  bool numeric = false;
};

OutputStats output_stats(const Tensor& tensor) {
  OutputStats stats;
  if (tensor.dtype() == DataType::kString || tensor.numel() == 0) return stats;
  stats.numeric = true;
  stats.min = std::numeric_limits<double>::infinity();
  stats.max = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    const double value = tensor.element_as_double(i);
    stats.min = std::min(stats.min, value);
    stats.max = std::max(stats.max, value);
    sum += value;
  }
  stats.mean = sum / static_cast<double>(tensor.numel());
  return stats;
}

nlohmann::json first_values(const Tensor& tensor) {
  nlohmann::json values = nlohmann::json::array();
  for (int64_t i = 0; i < std::min(tensor.numel(), kShownValues); ++i) {
    if (tensor.dtype() == DataType::kString)
      values.push_back(tensor.data<std::string>()[i]);
    else if (tensor.dtype() == DataType::kBool)
      values.push_back(tensor.data<bool>()[i]);
    else if (is_integer_dtype(tensor.dtype()))
      values.push_back(static_cast<int64_t>(tensor.element_as_double(i)));
    else
      values.push_back(tensor.element_as_double(i));
  }
  return values;
}

nlohmann::json output_json(const std::string& name, const Tensor& tensor) {
  nlohmann::json json = {{"name", name},
                         {"dtype", std::string(dtype_name(tensor.dtype()))},
                         {"shape", tensor.shape()},
                         {"first", first_values(tensor)}};
  const OutputStats stats = output_stats(tensor);
  if (stats.numeric) {
    json["min"] = stats.min;
    json["max"] = stats.max;
    json["mean"] = stats.mean;
  }
  return json;
}

// "plan cache: loaded (2.41 ms) DIR/....plan", or why a saved plan was
// rejected and rebuilt (on stderr, as a warning).
void print_plan_cache(const nlohmann::json& configuration) {
  if (!configuration.contains("plan_cache")) return;
  const nlohmann::json& cache = configuration["plan_cache"];
  const std::string outcome = cache.value("outcome", "off");
  if (outcome == "off") return;
  std::cout << fmt::format("plan cache: {} {}\n", outcome, cache.value("path", ""));
  if (outcome == "rebuilt" || outcome == "unsaved")
    fmt::print(stderr, "warning: plan cache: {}\n", cache.value("detail", ""));
}

void print_report(const nlohmann::json& report) {
  std::cout << fmt::format("model: {} on {} {} (loaded in {:.2f} ms)\n",
                           report["model"].get<std::string>(), report["backend"].get<std::string>(),
                           report["version"].get<std::string>(), report["load_ms"].get<double>());
  print_plan_cache(report["configuration"]);
  std::cout << "inputs:\n";
  for (const auto& input : report["inputs"]) {
    std::cout << fmt::format("  {}: {}{} ({})\n", input["name"].get<std::string>(),
                             input["dtype"].get<std::string>(), input["shape"].dump(),
                             input["source"].get<std::string>());
    if (input.contains("file"))
      std::cout << fmt::format("    written to {}\n", input["file"].get<std::string>());
  }
  std::cout << "outputs:\n";
  for (const auto& output : report["outputs"]) {
    std::cout << fmt::format("  {}: {}{}", output["name"].get<std::string>(),
                             output["dtype"].get<std::string>(), output["shape"].dump());
    if (output.contains("min")) {
      std::cout << fmt::format("  min {:.6g} max {:.6g} mean {:.6g}", output["min"].get<double>(),
                               output["max"].get<double>(), output["mean"].get<double>());
    }
    std::string first;
    for (const auto& value : output["first"]) {
      first += first.empty() ? "" : ", ";
      first += value.is_number_float() ? fmt::format("{:.6g}", value.get<double>()) : value.dump();
    }
    std::cout << fmt::format("  first [{}]\n", first);
    if (output.contains("file"))
      std::cout << fmt::format("    written to {}\n", output["file"].get<std::string>());
  }
  const nlohmann::json& configuration = report["configuration"];
  if (configuration.contains("run_plans") && configuration["run_plans"]["built"] > 0) {
    std::cout << fmt::format("run plan for these input shapes: built in {:.2f} ms\n",
                             configuration["run_plans"]["last_build_ms"].get<double>());
  }
  const nlohmann::json& timings = report["timings"];
  std::cout << fmt::format("run time: {:.3f} ms", report["run_ms"].get<double>());
  const double overhead_ms = timings["convert_in_ms"].get<double>() +
                             timings["convert_out_ms"].get<double>() +
                             timings["channel_ms"].get<double>();
  if (overhead_ms > 0.0005)
    std::cout << fmt::format(" (+ {:.3f} ms conversions and channel)", overhead_ms);
  std::cout << "\n";
}

backends::BackendOptions backend_options(const RunFlags& flags) {
  backends::BackendOptions options;
  options.threads = flags.threads;
  options.opt_level = flags.opt_level;
  options.max_isa = flags.max_isa;
  options.input_shapes = parse_shape_flags(flags.shapes);
  options.extra_outputs = flags.extra_outputs;
  options.call_timeout_s = flags.call_timeout_s;
  options.plan_cache_dir = flags.plan_cache_dir;
  for (const auto& [key, value] : parse_name_values("--backend-option", flags.settings))
    options.settings[key] = value;
  return options;
}

nlohmann::json timings_json(const backends::Model& model) {
  const backends::LoadTimings load = model.load_timings();
  const backends::RunTimings run = model.last_timings();
  return {{"startup_ms", load.startup_ms},
          {"load_ms", load.load_ms},
          {"convert_in_ms", run.convert_in_ns / 1e6},
          {"execute_ms", run.execute_ns / 1e6},
          {"convert_out_ms", run.convert_out_ns / 1e6},
          {"channel_ms", run.channel_ns / 1e6}};
}

void print_warnings(const nlohmann::json& configuration) {
  for (const auto& warning : configuration.value("warnings", nlohmann::json::array()))
    fmt::print(stderr, "warning: {}\n", warning.get<std::string>());
}

int run_model(const RunFlags& flags) {
  backends::BackendOptions options = backend_options(flags);
  // Flag syntax is checked before the (possibly slow) model load.
  parse_name_values("--input", flags.inputs);
  parse_name_values("--value", flags.values);
  parse_range_flags(flags.ranges);

  const backends::ModelSource source = backends::ModelSource::resolve(flags.model_path);
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  // Only a call in another process can be abandoned when it overruns.
  std::shared_ptr<backends::Backend> backend =
      registry.get(flags.backend, flags.call_timeout_s > 0 ? backends::Placement::kChildProcess
                                                           : backends::Placement::kDefault);
  const auto load_start = std::chrono::steady_clock::now();
  std::unique_ptr<backends::Model> model = backend->open(source, options);
  const double open_ms = elapsed_ms(load_start);
  print_warnings(model->configuration());
  std::map<std::string, PreparedInput> prepared = prepare_inputs(flags, source, *model);
  backends::TensorMap tensors;
  for (const auto& [name, input] : prepared) tensors[name] = input.tensor;
  if (!flags.save_inputs_dir.empty()) inputs::write_input_files(flags.save_inputs_dir, tensors);

  model->bind(tensors);
  model->execute();
  const backends::TensorMap outputs = model->fetch();

  const backends::LoadTimings load = model->load_timings();
  nlohmann::json report = {{"model", flags.model_path},
                           {"backend", flags.backend},
                           {"version", backend->info().version},
                           {"load_ms", load.load_ms},
                           {"open_ms", open_ms},
                           {"run_ms", model->last_timings().execute_ns / 1e6},
                           {"timings", timings_json(*model)},
                           {"configuration", model->configuration()},
                           {"threads", flags.threads},
                           {"inputs", nlohmann::json::array()},
                           {"outputs", nlohmann::json::array()}};
  for (const auto& [name, input] : prepared) {
    nlohmann::json json = {{"name", name},
                           {"dtype", std::string(dtype_name(input.tensor.dtype()))},
                           {"shape", input.tensor.shape()},
                           {"source", input.source}};
    if (!flags.save_inputs_dir.empty()) {
      json["file"] =
          (std::filesystem::path(flags.save_inputs_dir) / inputs::npy_file_name(name)).string();
    }
    report["inputs"].push_back(std::move(json));
  }
  if (!flags.output_dir.empty()) std::filesystem::create_directories(flags.output_dir);
  std::vector<std::string> names;
  for (const model::ValueInfo& declared : model->outputs()) names.push_back(declared.name);
  for (const std::string& extra : flags.extra_outputs)
    if (std::find(names.begin(), names.end(), extra) == names.end()) names.push_back(extra);
  for (const std::string& name : names) {
    auto found = outputs.find(name);
    if (found == outputs.end())
      fail(ErrorCode::kRuntime, "{}: output '{}' was not returned", flags.backend, name);
    nlohmann::json json = output_json(name, found->second);
    if (!flags.output_dir.empty()) {
      const std::string path =
          (std::filesystem::path(flags.output_dir) / inputs::npy_file_name(name)).string();
      write_npy(path, found->second);
      json["file"] = path;
    }
    report["outputs"].push_back(std::move(json));
  }
  if (flags.json_target != "-") print_report(report);
  if (!flags.json_target.empty()) write_json(report, flags.json_target);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* app = root.add_subcommand("run", "Run a model once and summarize its outputs");
  app->add_option("model", flags->model_path,
                  "Model: an .onnx file, a TorchScript .pt file, or a model directory "
                  "(docs/model-format.md)")
      ->required();
  app->add_option("--backend", flags->backend,
                  "Engine: native, onnxruntime, libtorch or python (default native; "
                  "`inferlab backends` lists them)");
  app->add_option("--opt-level", flags->opt_level, "Graph optimization level 0..3 (default 3)")
      ->check(CLI::Range(0, 3));
  app->add_option("--max-isa", flags->max_isa,
                  "Widest vector ISA of the native kernels: auto (the best the CPU has), avx512, "
                  "avx2 or portable (default auto)")
      ->check(CLI::IsMember({"auto", "avx512", "avx2", "portable"}));
  app->add_option("--backend-option", flags->settings,
                  "A backend-specific setting KEY=VALUE (e.g. save_optimized_model=FILE for "
                  "onnxruntime, mode=torchscript for python)");
  app->add_option("--extra-output", flags->extra_outputs,
                  "Also return this intermediate value (repeatable; native and onnxruntime)");
  app->add_option("--input", flags->inputs, "Input from a .npy or .pb file: NAME=FILE");
  app->add_option("--shape", flags->shapes, "Fix an input's shape: NAME=DIMS (e.g. x=1,3,224,224)");
  app->add_option("--value", flags->values, "Fill an input with one value: NAME=V");
  app->add_option("--input-range", flags->ranges,
                  "Range of an input's random values: NAME=LO:HI (default: the model "
                  "directory's range, else [0,1) floats, [0,100) ints)");
  app->add_option("--seed", flags->seed,
                  "Seed of the random inputs, as bench and profile use it (default 0)");
  app->add_option("--save-inputs", flags->save_inputs_dir,
                  "Write the inputs fed to the model to DIR/<input name>.npy");
  app->add_option("--output-dir", flags->output_dir, "Write each output to DIR/<output name>.npy");
  app->add_option("--json", flags->json_target,
                  "Also write the report as JSON to FILE ('-': stdout)");
  app->add_option("--threads", flags->threads, "Compute threads (0: one per core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--call-timeout", flags->call_timeout_s,
                  "Seconds the load or the run may take; the backend then runs in a worker "
                  "process that is killed when it overruns (default 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--plan-cache", flags->plan_cache_dir,
                  "Directory of saved plans: load the optimized plan from there, or build and "
                  "save it (native backend; docs/plan-format.md)");
  commands.push_back(Command{app, [flags] { return run_model(*flags); }});
}

}  // namespace inferlab::cli
