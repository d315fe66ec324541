// The ONNX conformance runner: runs every counted case of the ONNX test data
// (see case_catalog.h for what counts) through runtime::Session, each case in
// its own child process, and reports pass / fail / unsupported / crash.
//   conformance_runner --data-dir /usr/share/libonnx-testdata/data [--filter REGEX]
//       [--verbose] [--min-pass-rate R] [--report FILE.md] [--json FILE] [--list] [-j N]
// Exit status: 0 when the pass rate reaches --min-pass-rate and nothing
// crashed or hung, 1 otherwise, 2 for usage errors.
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "conformance/case_catalog.h"
#include "conformance/case_execution.h"
#include "conformance/child_process_pool.h"
#include "conformance/report_writer.h"

namespace inferlab::conformance {
namespace {

struct RunnerOptions {
  std::string data_dir;
  std::string filter;
  bool verbose = false;
  bool list = false;
  double min_pass_rate = 0;
  std::string report_path;
  std::string json_path;
  int jobs = 2;
  double timeout_seconds = 60;
  int threads = 1;
  int opt_level = 3;
  // For the runner's own self-check: cases (regex on suite/name) whose child
  // process deliberately crashes or hangs, to prove one case cannot take the
  // run down with it.
  std::string inject_crash;
  std::string inject_hang;
};

// The last few non-empty lines a child printed, on one line (sanitizer
// summaries and abort messages end up here).
std::string log_summary(const std::string& log) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    if (end > start) lines.push_back(log.substr(start, end - start));
    start = end + 1;
  }
  std::string summary;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) {
    summary += (summary.empty() ? "" : " / ") + lines[i];
  }
  return summary.size() > 400 ? summary.substr(summary.size() - 400) : summary;
}

std::string with_log(std::string reason, const std::string& log) {
  const std::string tail = log_summary(log);
  return tail.empty() ? reason : reason + ": " + tail;
}

CaseOutcome outcome_from_child(const ChildResult& child, double timeout_seconds) {
  CaseOutcome outcome;
  outcome.status = CaseStatus::kCrash;
  outcome.seconds = child.seconds;
  if (child.timed_out) {
    outcome.reason = fmt::format("timed out after {:.0f} s", timeout_seconds);
  } else if (child.term_signal != 0) {
    outcome.reason = with_log("crashed: " + signal_name(child.term_signal), child.log_tail);
  } else if (!child.sent_result) {
    outcome.reason =
        with_log(fmt::format("crashed: exited with status {} before reporting", child.exit_status),
                 child.log_tail);
  } else if (child.exit_status != 0) {
    outcome.reason = with_log(
        fmt::format("crashed: exited with status {} after the case ran", child.exit_status),
        child.log_tail);
  } else {
    const auto message = nlohmann::json::parse(child.result);
    outcome.status = parse_case_status(message.at("status").get<std::string>());
    outcome.reason = message.at("reason").get<std::string>();
  }
  return outcome;
}

std::string run_case_in_child(const ConformanceCase& c, const ExecutionOptions& options,
                              const RunnerOptions& runner) {
  if (!runner.inject_crash.empty() && std::regex_search(c.id(), std::regex(runner.inject_crash))) {
    std::raise(SIGSEGV);
  }
  if (!runner.inject_hang.empty() && std::regex_search(c.id(), std::regex(runner.inject_hang))) {
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
  const CaseOutcome outcome = run_case(c, options);
  return nlohmann::json{{"status", case_status_name(outcome.status)}, {"reason", outcome.reason}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_case_list(const std::vector<CaseResult>& results) {
  for (const auto& result : results) {
    const ConformanceCase& c = *result.test_case;
    if (c.counted) {
      std::cout << fmt::format("counted      {} (opset {}, {})\n", c.id(), c.opset,
                               c.primary_operator);
    } else {
      std::cout << fmt::format("not counted  {} ({}: {})\n", c.id(), c.not_counted_kind,
                               c.not_counted_reason);
    }
  }
}

void print_outcome(const ConformanceCase& c, const CaseOutcome& outcome, const ChildResult& child,
                   bool verbose) {
  if (outcome.status == CaseStatus::kPass && !verbose) return;
  std::string line = fmt::format("{:<11} {}", case_status_name(outcome.status), c.id());
  if (verbose) line += fmt::format(" ({:.2f} s)", outcome.seconds);
  if (!outcome.reason.empty()) line += ": " + outcome.reason;
  std::cout << line << std::endl;
  if (verbose && !child.log_tail.empty()) std::cout << child.log_tail << std::endl;
}

void run_counted_cases(std::vector<CaseResult>& results, const RunnerOptions& options) {
  std::vector<CaseResult*> to_run;
  for (auto& result : results) {
    if (result.test_case->counted) to_run.push_back(&result);
  }
  ExecutionOptions execution;
  execution.threads = options.threads;
  execution.opt_level = options.opt_level;
  run_in_child_processes(
      to_run.size(), options.jobs, std::chrono::duration<double>(options.timeout_seconds),
      [&](size_t index) {
        return run_case_in_child(*to_run[index]->test_case, execution, options);
      },
      [&](size_t index, ChildResult child) {
        CaseOutcome outcome = outcome_from_child(child, options.timeout_seconds);
        print_outcome(*to_run[index]->test_case, outcome, child, options.verbose);
        to_run[index]->outcome = std::move(outcome);
      });
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

int run_runner(const RunnerOptions& options) {
  std::vector<ConformanceCase> cases = discover_cases(options.data_dir);
  if (cases.empty()) {
    std::cerr << "conformance_runner: no cases under " << options.data_dir << "\n";
    return 1;
  }
  const std::regex filter(options.filter.empty() ? std::string(".*") : options.filter);
  std::vector<CaseResult> results;
  for (const auto& c : cases) {
    if (std::regex_search(c.id(), filter)) results.push_back({&c, std::nullopt});
  }
  if (options.list) {
    print_case_list(results);
    return 0;
  }
  run_counted_cases(results, options);
  const StatusCounts counts = count_statuses(results);
  if (options.verbose) std::cout << "\n" << operator_table_text(results) << "\n";
  std::cout << summary_line(counts) << std::endl;
  if (!options.report_path.empty()) {
    const ReportContext context{options.data_dir, options.filter, options.timeout_seconds};
    write_file(options.report_path, markdown_report(results, context));
  }
  if (!options.json_path.empty()) {
    const std::string json = json_report(results).dump(2) + "\n";
    if (options.json_path == "-")
      std::cout << json;
    else
      write_file(options.json_path, json);
  }
  if (counts.crashed > 0) {
    std::cout << fmt::format("conformance: {} case(s) crashed or timed out\n", counts.crashed);
    return 1;
  }
  if (counts.pass_rate() < options.min_pass_rate) {
    std::cout << fmt::format("conformance: pass rate {:.1f}% is below the required {:.1f}%\n",
                             100.0 * counts.pass_rate(), 100.0 * options.min_pass_rate);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace inferlab::conformance

int main(int argc, char** argv) {
  inferlab::conformance::RunnerOptions options;
  CLI::App app{"Runs the ONNX conformance cases through InferLab and reports the pass rate."};
  app.add_option("--data-dir", options.data_dir, "ONNX test data (holds node/, simple/, ...)")
      ->required()
      ->check(CLI::ExistingDirectory);
  app.add_option("--filter", options.filter, "only cases whose suite/name matches this regex");
  app.add_flag("--verbose,-v", options.verbose, "print every case, child output, operator table");
  app.add_flag("--list", options.list, "list the cases and whether they count, run nothing");
  app.add_option("--min-pass-rate", options.min_pass_rate, "fail below this pass rate (0..1)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--report", options.report_path, "write the Markdown report here");
  app.add_option("--json", options.json_path, "write every case's result as JSON ('-': stdout)");
  app.add_option("-j,--jobs", options.jobs, "cases run in parallel child processes (default 2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--timeout", options.timeout_seconds, "seconds per case before it counts as hung")
      ->check(CLI::PositiveNumber);
  app.add_option("--opt-level", options.opt_level, "Graph optimization level 0..3 (default 3)")
      ->check(CLI::Range(0, 3));
  app.add_option("--threads", options.threads, "Session threads per case (default 1)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--inject-crash", options.inject_crash, "self-check: crash the cases matching")
      ->group("");
  app.add_option("--inject-hang", options.inject_hang, "self-check: hang the cases matching")
      ->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  try {
    for (const auto* pattern : {&options.filter, &options.inject_crash, &options.inject_hang}) {
      std::regex check(*pattern);
    }
  } catch (const std::regex_error& error) {
    std::cerr << "conformance_runner: invalid regex: " << error.what() << "\n";
    return 2;
  }
  try {
    return inferlab::conformance::run_runner(options);
  } catch (const std::exception& error) {
    std::cerr << "conformance_runner: " << error.what() << "\n";
    return 1;
  }
}
