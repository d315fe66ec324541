// `inferlab gate NEW.json --baseline OLD.json [--max-regression 5%]`: the CI
// regression gate over bench results (bench/gate.h). Exit 0 when nothing
// regressed beyond the threshold and the noise, 1 otherwise.
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "inferlab/bench/gate.h"
#include "inferlab/cli/cli_common.h"

namespace inferlab::cli {

namespace {

struct GateFlags {
  std::string candidate_path;
  std::string baseline_path;
  std::string max_regression = "5%";
  std::string json_target;
};

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

int run_gate(const GateFlags& flags) {
  const double threshold = parse_percent(flags.max_regression);
  const bench::GateReport report = bench::compare_results(
      read_result(flags.baseline_path), read_result(flags.candidate_path), threshold);
  nlohmann::json json = {{"passed", report.passed},
                         {"max_regression", threshold},
                         {"findings", nlohmann::json::array()}};
  if (flags.json_target != "-") {
    std::cout << fmt::format("{:<24} {:<12} {:>14} {:>10} {:>8}  {}\n", "point", "backend",
                             "baseline ratio", "new ratio", "change", "verdict");
  }
  for (const bench::GateFinding& finding : report.findings) {
    json["findings"].push_back({{"point", finding.point},
                                {"backend", finding.backend},
                                {"baseline_ratio", finding.baseline_ratio},
                                {"new_ratio", finding.new_ratio},
                                {"change", finding.change},
                                {"verdict", finding.verdict}});
    if (flags.json_target != "-") {
      std::cout << fmt::format("{:<24} {:<12} {:>14.4f} {:>10.4f} {:>+7.1f}%  {}\n", finding.point,
                               finding.backend, finding.baseline_ratio, finding.new_ratio,
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

void add_gate_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<GateFlags>();
  CLI::App* app = root.add_subcommand(
      "gate", "Fail when a bench result regressed against a baseline beyond threshold and noise");
  app->add_option("result", flags->candidate_path, "New bench result (inferlab bench --json)")
      ->required();
  app->add_option("--baseline", flags->baseline_path, "Baseline bench result")->required();
  app->add_option("--max-regression", flags->max_regression,
                  "Allowed slowdown of a ratio (default 5%)");
  app->add_option("--json", flags->json_target,
                  "Also write the findings as JSON to FILE ('-': stdout)");
  commands.push_back(Command{app, [flags] { return run_gate(*flags); }});
}

}  // namespace inferlab::cli
