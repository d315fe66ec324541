// `inferlab gate NEW.json --baseline OLD.json [--max-regression 5%]`: the CI
// regression gate over bench results (bench/gate.h); `inferlab gate
// --interleave OLD_BINARY NEW_BINARY MODEL` benches two builds' engines in
// one interleaved run instead. Exit 0 when nothing regressed beyond the
// threshold and the noise, 1 otherwise.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "inferlab/bench/bench_runner.h"
#include "inferlab/bench/gate.h"
#include "inferlab/cli/cli_common.h"

namespace inferlab::cli {

namespace {

struct GateFlags {
  std::string candidate_path;
  std::string baseline_path;
  std::string max_regression = "5%";
  std::string json_target;
  // --interleave OLD_BINARY NEW_BINARY MODEL and the bench settings it uses.
  std::vector<std::string> interleave;
  std::string engine = "native";
  std::string bench_json_path;
  bench::BenchOptions options;
  int threads = 0;
  std::vector<std::string> shapes;  // NAME=DIMS, fixed for both builds
};

constexpr const char* kOldBuild = "old";
constexpr const char* kNewBuild = "new";

nlohmann::json read_result(const std::string& path) {
  std::ifstream file(path);
  if (!file) fail(ErrorCode::kIo, "cannot open bench result {}", path);
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    fail(ErrorCode::kInvalidArgument, "{} is not a JSON bench result: {}", path, error.what());
  }
}

double parse_percent(const std::string& text) {
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    const std::string rest = text.substr(used);
    if (value < 0 || (rest != "%" && !rest.empty())) throw std::invalid_argument(text);
    return value / 100.0;
  } catch (const std::exception&) {
    throw UsageError("--max-regression takes a percentage like 5%, got '" + text + "'");
  }
}

// A build is named by its `inferlab` binary (or its build directory); its
// engines run in the worker host beside it, in backends/.
std::string build_plugin_dir(const std::string& binary) {
  namespace fs = std::filesystem;
  const fs::path path(binary);
  const fs::path directory = fs::is_directory(path) ? path : path.parent_path();
  const fs::path plugins = (directory.empty() ? fs::path(".") : directory) / "backends";
  if (!fs::exists(path) || !fs::exists(plugins / "inferlab-backend-host"))
    throw UsageError(fmt::format("--interleave: '{}' is not an InferLab build (no {} beside it)",
                                 binary, (plugins / "inferlab-backend-host").string()));
  return fs::absolute(plugins).lexically_normal().string();
}

bench::GateReport gate_interleaved(GateFlags& flags, const std::string& command, double threshold) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  registry.add_build(kOldBuild, flags.engine, build_plugin_dir(flags.interleave[0]));
  registry.add_build(kNewBuild, flags.engine, build_plugin_dir(flags.interleave[1]));
  bench::BenchOptions& options = flags.options;
  options.model_path = flags.interleave[2];
  options.backends = {kOldBuild, kNewBuild};
  options.reference = kOldBuild;
  options.threads = {flags.threads};
  for (const auto& [name, shape] : parse_shape_flags(flags.shapes)) options.shapes[name] = {shape};
  options.command_line = command;
  const bool show_progress = isatty(STDERR_FILENO) && flags.json_target != "-";
  const nlohmann::json result =
      bench::run_bench(options, registry, [show_progress](const std::string& status) {
        if (show_progress) fmt::print(stderr, "\r\033[K{}", status);
      });
  if (show_progress) fmt::print(stderr, "\r\033[K");
  if (!flags.bench_json_path.empty()) write_json(result, flags.bench_json_path);
  return bench::compare_builds(result, kOldBuild, kNewBuild, threshold);
}

int run_gate(GateFlags& flags, const std::string& command) {
  const double threshold = parse_percent(flags.max_regression);
  const bool interleaved = !flags.interleave.empty();
  if (interleaved && (!flags.candidate_path.empty() || !flags.baseline_path.empty()))
    throw UsageError("--interleave benches two builds; it takes no result or --baseline");
  if (!interleaved && (flags.candidate_path.empty() || flags.baseline_path.empty()))
    throw UsageError("gate needs a result and --baseline, or --interleave OLD NEW MODEL");
  const bench::GateReport report =
      interleaved ? gate_interleaved(flags, command, threshold)
                  : bench::compare_results(read_result(flags.baseline_path),
                                           read_result(flags.candidate_path), threshold);
  nlohmann::json json = {{"mode", interleaved ? "interleave" : "baseline"},
                         {"passed", report.passed},
                         {"max_regression", threshold},
                         {"findings", nlohmann::json::array()}};
  if (flags.json_target != "-") {
    std::cout << fmt::format("{:<24} {:<8} {:>14} {:>10} {:>18} {:>8}  {}\n", "point", "backend",
                             interleaved ? "old" : "baseline ratio",
                             interleaved ? "new / old" : "new ratio", "95% interval", "change",
                             "verdict");
  }
  for (const bench::GateFinding& finding : report.findings) {
    json["findings"].push_back({{"point", finding.point},
                                {"backend", finding.backend},
                                {"baseline_ratio", finding.baseline_ratio},
                                {"new_ratio", finding.new_ratio},
                                {"new_interval", {finding.new_low, finding.new_high}},
                                {"change", finding.change},
                                {"verdict", finding.verdict}});
    if (flags.json_target != "-") {
      std::cout << fmt::format("{:<24} {:<8} {:>14.4f} {:>10.4f} {:>18} {:>+7.1f}%  {}\n",
                               finding.point, finding.backend, finding.baseline_ratio,
                               finding.new_ratio,
                               fmt::format("[{:.4f}, {:.4f}]", finding.new_low, finding.new_high),
                               finding.change * 100.0, finding.verdict);
    }
  }
  if (flags.json_target != "-")
    std::cout << (report.passed
                      ? "gate: passed\n"
                      : "gate: FAILED (a regression beyond the threshold and the noise)\n");
  if (!flags.json_target.empty()) write_json(json, flags.json_target);
  return report.passed ? 0 : 1;
}

}  // namespace

void add_gate_command(CLI::App& root, std::vector<Command>& commands, int argc, char** argv) {
  auto flags = std::make_shared<GateFlags>();
  bench::BenchOptions& o = flags->options;
  CLI::App* app = root.add_subcommand(
      "gate", "Fail when a bench result regressed against a baseline beyond threshold and noise");
  app->add_option("result", flags->candidate_path, "New bench result (inferlab bench --json)");
  app->add_option("--baseline", flags->baseline_path, "Baseline bench result");
  app->add_option("--interleave", flags->interleave,
                  "OLD_BINARY NEW_BINARY MODEL: bench two builds interleaved in one run")
      ->expected(3);
  app->add_option("--max-regression", flags->max_regression,
                  "Allowed slowdown of a ratio (default 5%)");
  app->add_option("--json", flags->json_target,
                  "Also write the findings as JSON to FILE ('-': stdout)");
  app->add_option("--engine", flags->engine,
                  "With --interleave: the engine compared across builds (default native)");
  app->add_option("--threads", flags->threads, "With --interleave: threads (default 0: all)");
  app->add_option("--rounds", o.rounds, "With --interleave: rounds (default 10)")
      ->check(CLI::PositiveNumber);
  app->add_option("--min-iterations", o.min_iterations,
                  "With --interleave: iterations per round, at least (default 10)")
      ->check(CLI::PositiveNumber);
  app->add_option("--min-round-ms", o.min_round_ms,
                  "With --interleave: round duration, at least (default 1000)");
  app->add_option("--seed", o.seed, "With --interleave: seed of inputs and bootstrap");
  app->add_option("--shape", flags->shapes,
                  "With --interleave: NAME=DIMS, an input's shape for both builds (repeatable)");
  app->add_option("--bench-json", flags->bench_json_path,
                  "With --interleave: also write the bench result to FILE");
  const std::string command = command_line(argc, argv);
  commands.push_back(Command{app, [flags, command] { return run_gate(*flags, command); }});
}

}  // namespace inferlab::cli
