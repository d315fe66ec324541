// `inferlab bench MODEL --backends a,b,...`: the side-by-side measurement of
// docs/bench.md. Parses flags into BenchOptions, runs bench::run_bench, prints
// the table (bench_table.cc) and writes the requested reports.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inferlab/backends/registry.h"
#include "inferlab/bench/bench_runner.h"
#include "inferlab/cli/bench_table.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/cli/input_tensors.h"
#include "inferlab/report/csv_report.h"
#include "inferlab/report/html_report.h"
#include "inferlab/report/markdown_report.h"

namespace inferlab::cli {

namespace {

struct BenchFlags {
  bench::BenchOptions options;
  std::string backends = "native,onnxruntime";
  std::string threads = "0";
  std::string batch;
  std::vector<std::string> shapes;
  std::vector<std::string> ranges;           // NAME=LO:HI
  std::vector<std::string> backend_options;  // BACKEND:KEY=VALUE
  double tolerance = -1.0;
  bool check_accuracy = false;
  std::string json_target, csv_path, markdown_path, html_path;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator))
    if (!part.empty()) parts.push_back(part);
  return parts;
}

template <typename T>
std::vector<T> parse_list(const std::string& flag, const std::string& text) {
  std::vector<T> values;
  for (const std::string& part : split(text, ',')) {
    try {
      size_t used = 0;
      const long long value = std::stoll(part, &used);
      if (used != part.size()) throw std::invalid_argument(part);
      values.push_back(static_cast<T>(value));
    } catch (const std::exception&) {
      throw UsageError(
          fmt::format("{} takes a comma-separated list of integers, got '{}'", flag, text));
    }
  }
  return values;
}

// "--shape x=1,3,224,224:1,3,320,320" and repeated --shape for one input both
// add shapes to that input's sweep.
std::map<std::string, std::vector<Shape>> parse_shape_sweep(const std::vector<std::string>& texts) {
  std::map<std::string, std::vector<Shape>> shapes;
  for (const std::string& text : texts) {
    const auto [name, dims] = split_name_value("--shape", text);
    for (const std::string& one : split(dims, ':'))
      shapes[name].push_back(parse_shape_flags({name + "=" + one}).at(name));
  }
  return shapes;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) fail(ErrorCode::kIo, "cannot write {}", path);
}

std::string cache_directory() {
  const char* cache = std::getenv("INFERLAB_CACHE");
  const char* home = std::getenv("HOME");
  return cache ? cache : std::string(home ? home : "/root") + "/.cache/inferlab";
}

// The JSON first: it is the result; the other reports are views of it.
void write_reports(const BenchFlags& flags, const nlohmann::json& result,
                   const std::string& chart_library) {
  if (!flags.json_target.empty()) write_json(result, flags.json_target);
  if (!flags.csv_path.empty()) write_text(flags.csv_path, report::csv_report(result));
  if (!flags.markdown_path.empty())
    write_text(flags.markdown_path, report::markdown_report(result));
  if (!flags.html_path.empty()) {
    std::ifstream library(chart_library, std::ios::binary);
    std::stringstream script;
    script << library.rdbuf();
    write_text(flags.html_path, report::html_report(result, script.str()));
  }
}

// "--backend-option BACKEND:KEY=VALUE" flags by backend, each backend one
// of those benchmarked.
std::map<std::string, std::map<std::string, std::string>> parse_backend_options(
    const std::vector<std::string>& texts, const std::vector<std::string>& backends) {
  std::map<std::string, std::vector<std::string>> by_backend;
  for (const std::string& text : texts) {
    const size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0) {
      throw UsageError(
          fmt::format("--backend-option '{}': expected BACKEND:KEY=VALUE, e.g. "
                      "onnxruntime:denormals=flush",
                      text));
    }
    const std::string backend = text.substr(0, colon);
    if (std::find(backends.begin(), backends.end(), backend) == backends.end()) {
      throw UsageError(fmt::format("--backend-option '{}': '{}' is not one of --backends ({})",
                                   text, backend, fmt::join(backends, ",")));
    }
    by_backend[backend].push_back(text.substr(colon + 1));
  }
  std::map<std::string, std::map<std::string, std::string>> settings;
  for (const auto& [backend, values] : by_backend) {
    settings[backend] = parse_name_values("--backend-option " + backend, values);
  }
  return settings;
}

int run_bench_command(BenchFlags& flags, const std::string& command) {
  bench::BenchOptions& options = flags.options;
  options.backends = split(flags.backends, ',');
  options.backend_settings = parse_backend_options(flags.backend_options, options.backends);
  options.threads = parse_list<int>("--threads", flags.threads);
  options.batch = parse_list<int64_t>("--batch", flags.batch);
  options.shapes = parse_shape_sweep(flags.shapes);
  options.input_ranges = parse_range_flags(flags.ranges);
  options.command_line = command;
  if (flags.tolerance >= 0) options.tolerance = bench::Tolerance{flags.tolerance, 0.0};
  bench::sweep_points(options);  // usage errors before any worker starts
  const std::string chart_library =
      flags.html_path.empty() ? "" : report::find_chart_library(cache_directory());
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const bool show_progress = isatty(STDERR_FILENO) && flags.json_target != "-";
  const bench::ProgressCallback progress = [show_progress](const std::string& status) {
    if (show_progress) fmt::print(stderr, "\r\033[K{}", status);
  };
  const nlohmann::json result = bench::run_bench(options, registry, progress);
  if (show_progress) fmt::print(stderr, "\r\033[K");
  if (flags.json_target != "-") print_bench_table(result, isatty(STDOUT_FILENO));
  write_reports(flags, result, chart_library);
  if (flags.check_accuracy && !bench_accuracy_passed(result)) {
    fmt::print(stderr, "error: accuracy check failed (see the table)\n");
    return 1;
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& root, std::vector<Command>& commands, int argc, char** argv) {
  auto flags = std::make_shared<BenchFlags>();
  bench::BenchOptions& o = flags->options;
  CLI::App* app = root.add_subcommand(
      "bench", "Measure a model on several backends side by side, with accuracy next to speed");
  app->add_option("model", o.model_path, "Model: .onnx, TorchScript .pt, or a model directory")
      ->required();
  app->add_option("--backends", flags->backends,
                  "Comma-separated backends (default native,onnxruntime)");
  app->add_option("--reference", o.reference,
                  "Reference backend for accuracy and ratios (default onnxruntime, else native)");
  app->add_option("--rounds", o.rounds, "Interleaved rounds (default 10)")
      ->check(CLI::PositiveNumber);
  app->add_option("--min-iterations", o.min_iterations,
                  "Iterations per round, at least (default 10)")
      ->check(CLI::PositiveNumber);
  app->add_option("--min-round-ms", o.min_round_ms, "Duration of a round, at least (default 1000)");
  app->add_option("--warmup-runs", o.warmup_max_runs, "Warm-up runs, at most (default 20)");
  app->add_option("--warmup-ms", o.warmup_max_ms, "Warm-up time, at most (default 5000)");
  app->add_option("--settle-ms", o.settle_ms, "Pause before each round (default 200)");
  app->add_option("--call-timeout", o.call_timeout_s,
                  "Seconds a backend's load or run may take before its worker is killed and it "
                  "becomes an error row (default 300; 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--backend-option", flags->backend_options,
                  "BACKEND:KEY=VALUE: a setting of one backend, e.g. onnxruntime:denormals=flush "
                  "(repeatable; docs/cli.md lists each backend's settings)");
  app->add_option("--plan-cache", o.plan_cache_dir,
                  "Plan cache directory for the native engine; its load time is then reported "
                  "with and without the cache");
  app->add_flag("--shuffle", o.shuffle, "Shuffle the backends' order in each round (seeded)");
  app->add_option(
      "--seed", o.seed,
      "Seed of inputs (as run and profile use it), shuffling and bootstrap (default 0)");
  app->add_option("--opt-level", o.opt_level, "Optimization level 0..3 (default 3)")
      ->check(CLI::Range(0, 3));
  app->add_option("--max-isa", o.max_isa,
                  "Widest vector ISA of the native kernels: auto (the best the CPU has), avx512, "
                  "avx2 or portable (default auto)")
      ->check(CLI::IsMember({"auto", "avx512", "avx2", "portable"}));
  app->add_option("--threads", flags->threads,
                  "Threads, or a sweep: 1,2 (default 0: one per core)");
  app->add_option("--batch", flags->batch, "Batch sizes to sweep: 1,4,16");
  app->add_option("--shape", flags->shapes, "NAME=DIMS[:DIMS...] input shapes (repeatable)");
  app->add_flag("--cross", o.cross, "Allow sweeping several variables at once (every combination)");
  app->add_option("--inputs", o.inputs_dir,
                  "Directory of .npy samples used in turn (default random)");
  app->add_option("--input-range", flags->ranges,
                  "Range of an input's random values: NAME=LO:HI (default: the model "
                  "directory's range, else [0,1) floats, [0,100) ints)");
  app->add_option("--save-inputs", o.save_inputs_dir,
                  "Write the inputs fed to the model to DIR/<input name>.npy (DIR/point<N>/ "
                  "when several points)");
  app->add_option("--classifier", o.classifier_outputs,
                  "Output holding class scores (top-k agreement)");
  app->add_option("--tolerance", flags->tolerance,
                  "Max error vs the reference (default by precision)");
  app->add_flag("--check-accuracy", flags->check_accuracy, "Exit 1 when an accuracy check fails");
  app->add_option("--json", flags->json_target,
                  "Write the result document (docs/bench-schema.md) to FILE ('-': stdout)");
  app->add_option("--csv", flags->csv_path, "Write a CSV table to FILE");
  app->add_option("--markdown", flags->markdown_path, "Write a Markdown report to FILE");
  app->add_option("--html", flags->html_path,
                  "Write a self-contained HTML report with charts to FILE");
  const std::string command = command_line(argc, argv);
  commands.push_back(Command{app, [flags, command] { return run_bench_command(*flags, command); }});
}

}  // namespace inferlab::cli
