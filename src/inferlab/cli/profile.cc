// `inferlab profile MODEL [--backends native[,onnxruntime]]`: where the time
// of a model goes, per node and per operator type, with each node's FLOPs,
// bytes and achieved rates, the time outside kernels, the cost of profiling
// itself (against interleaved unprofiled runs), and with two backends the
// cross-engine comparison. --json writes the document, --trace a Chrome
// trace-event file. docs/profile.md describes the figures.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "inferlab/backends/registry.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/cli/input_tensors.h"
#include "inferlab/cli/profile_table.h"
#include "inferlab/profile/machine_peak.h"
#include "inferlab/profile/profile.h"
#include "inferlab/profile/trace.h"
#include "inferlab/sysinfo/sysinfo_record.h"

namespace inferlab::cli {

namespace {

struct ProfileFlags {
  profile::ProfileOptions options;
  std::string backends = "native";
  std::vector<std::string> shapes;
  std::vector<std::string> ranges;
  bool no_baseline = false;
  std::string json_target;
  std::string trace_path;
  std::string sysinfo_path;
  bool no_peak = false;
};

std::vector<std::string> split_backends(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream stream(text);
  std::string name;
  while (std::getline(stream, name, ','))
    if (!name.empty()) names.push_back(name);
  if (names.empty() || names.size() > 2) {
    throw UsageError(fmt::format("--backends takes one or two backends, got '{}'", text));
  }
  if (names.size() == 2 && names[0] == names[1])
    throw UsageError(fmt::format("--backends names {} twice", names[0]));
  return names;
}

int run_profile_command(ProfileFlags& flags) {
  profile::ProfileOptions& options = flags.options;
  options.backends = split_backends(flags.backends);
  options.input_shapes = parse_shape_flags(flags.shapes);
  options.input_ranges = parse_range_flags(flags.ranges);
  options.baseline = !flags.no_baseline;
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const bool show_progress = isatty(STDERR_FILENO) != 0;
  const profile::ProgressCallback progress = [show_progress](const std::string& status) {
    if (show_progress) fmt::print(stderr, "\r\033[K{}", status);
  };
  profile::ProfileResult result = profile::run_profile(options, registry, progress);
  // After the runs, so a model that fails to load fails before the machine
  // is measured, and the measurement does not disturb the runs.
  if (!flags.no_peak) {
    result.options.peak = profile::resolve_machine_peak(
        {options.threads, flags.sysinfo_path, sysinfo::default_record_path()}, progress);
    for (profile::BackendProfile& backend : result.backends) {
      profile::apply_machine_peak(backend, *result.options.peak);
    }
  }
  if (show_progress) fmt::print(stderr, "\r\033[K");
  if (flags.json_target != "-") print_profile_tables(result, std::cout);
  if (!flags.json_target.empty()) write_json(profile::profile_json(result), flags.json_target);
  if (!flags.trace_path.empty()) profile::write_trace(result, flags.trace_path);
  return 0;
}

}  // namespace

void add_profile_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<ProfileFlags>();
  profile::ProfileOptions& o = flags->options;
  CLI::App* app = root.add_subcommand(
      "profile", "Where a model's time goes: per node, per operator type, and across engines");
  app->add_option("model", o.model_path, "Model: .onnx file or model directory")->required();
  app->add_option("--backends", flags->backends,
                  "One backend, or two to compare: native[,onnxruntime] (default native)");
  app->add_option("--threads", o.threads, "Threads per run (default 1; 0: one per core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--shape", flags->shapes, "NAME=DIMS input shape, e.g. input=1,3,224,224");
  app->add_option("--runs", o.runs,
                  "Profiled runs, each followed by an unprofiled one (default 20)")
      ->check(CLI::PositiveNumber);
  app->add_option("--warmup", o.warmup, "Warm-up runs of each model before counting (default 5)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--settle-ms", o.settle_ms,
                  "With two backends, pause before each one's turn so the other's threads stop "
                  "spinning (default 100)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--top", o.top, "Hottest nodes shown (default 10)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--opt-level", o.opt_level, "Optimization level 0..3 (default 3)")
      ->check(CLI::Range(0, 3));
  app->add_option("--max-isa", o.max_isa,
                  "Widest vector ISA of the native kernels: auto (the best the CPU has), avx512, "
                  "avx2 or portable (default auto)")
      ->check(CLI::IsMember({"auto", "avx512", "avx2", "portable"}));
  app->add_option("--input-range", flags->ranges,
                  "Range of an input's random values: NAME=LO:HI (default: the model "
                  "directory's range, else [0,1) floats, [0,100) ints)");
  app->add_option("--seed", o.seed,
                  "Seed of the random inputs, as run and bench use it (default 0)");
  app->add_flag("--no-baseline", flags->no_baseline,
                "Skip the interleaved unprofiled runs (no overhead figure)");
  app->add_option("--sysinfo", flags->sysinfo_path,
                  "Roofline limits from FILE (`inferlab sysinfo --json FILE`); default: the "
                  "record `inferlab sysinfo` keeps in the cache, measured now if there is none");
  app->add_flag("--no-peak", flags->no_peak, "No roofline: leave the share of peak out")
      ->excludes("--sysinfo");
  app->add_option("--json", flags->json_target, "Write the profile as JSON to FILE ('-': stdout)");
  app->add_option("--trace", flags->trace_path,
                  "Write a Chrome trace-event file (Perfetto, chrome://tracing) to FILE");
  commands.push_back(Command{app, [flags] { return run_profile_command(*flags); }});
}

}  // namespace inferlab::cli
