// load_time: how long does it take before a model can run? In one process it
// interleaves rounds of three loads of the same model — the native engine
// from its plan cache (docs/plan-format.md), the native engine without it,
// and ONNX Runtime's session creation (all optimizations, the onnxruntime
// backend) — and prints each one's median over rounds and the ratios to ONNX
// Runtime with paired 95% bootstrap intervals.
//
//   load_time ~/.cache/inferlab/models/resnet50_op17.onnx --rounds 10 --json out.json
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "inferlab/backends/model_source.h"
#include "inferlab/backends/registry.h"
#include "inferlab/bench/statistics.h"

namespace inferlab::benchmarks {
namespace {

struct Flags {
  std::string model;
  int rounds = 10;
  int loads_per_round = 3;
  int threads = 1;
  std::string cache_dir;
  std::string json_path;
};

struct Contender {
  std::string label;
  std::string backend;
  bool cached = false;
  std::vector<double> round_medians_ms;
};

double load_once(backends::BackendRegistry& registry, const backends::ModelSource& source,
                 const Contender& contender, const Flags& flags) {
  backends::BackendOptions options;
  options.threads = flags.threads;
  if (contender.cached) options.plan_cache_dir = flags.cache_dir;
  auto model =
      registry.get(contender.backend, backends::Placement::kInProcess)->open(source, options);
  if (contender.cached &&
      model->configuration()["plan_cache"]["outcome"].get<std::string>() != "loaded")
    throw Error(ErrorCode::kRuntime, "the plan was not loaded from the cache");
  return model->load_timings().load_ms;
}

nlohmann::json report(const Flags& flags, const std::vector<Contender>& contenders) {
  const Contender& peer = contenders.back();
  nlohmann::json json = {{"model", flags.model},
                         {"rounds", flags.rounds},
                         {"loads_per_round", flags.loads_per_round},
                         {"threads", flags.threads},
                         {"contenders", nlohmann::json::array()}};
  std::cout << fmt::format("{:<24} {:>12}  {}\n", "load", "median ms", "ratio to onnxruntime");
  for (const Contender& contender : contenders) {
    const double median = bench::median(contender.round_medians_ms);
    nlohmann::json entry = {{"label", contender.label},
                            {"median_ms", median},
                            {"round_medians_ms", contender.round_medians_ms}};
    std::string ratio_text = "reference";
    if (&contender != &peer) {
      const double ratio = median / bench::median(peer.round_medians_ms);
      const bench::Interval interval = bench::bootstrap_ratio_interval(
          contender.round_medians_ms, peer.round_medians_ms, {10000, 0.95, 0});
      entry["ratio_to_onnxruntime"] = {{"value", ratio},
                                       {"interval", {interval.low, interval.high}}};
      ratio_text = fmt::format("{:.3f} [{:.3f}, {:.3f}]", ratio, interval.low, interval.high);
    }
    std::cout << fmt::format("{:<24} {:>12.2f}  {}\n", contender.label, median, ratio_text);
    json["contenders"].push_back(entry);
  }
  return json;
}

int run(const Flags& flags) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const backends::ModelSource source = backends::ModelSource::resolve(flags.model);
  std::vector<Contender> contenders = {{"native, plan cache", "native", true, {}},
                                       {"native, no cache", "native", false, {}},
                                       {"onnxruntime session", "onnxruntime", false, {}}};
  // Prime: the plan is saved and every engine's code paged in before timing.
  backends::BackendOptions save;
  save.threads = flags.threads;
  save.plan_cache_dir = flags.cache_dir;
  registry.get("native", backends::Placement::kInProcess)->open(source, save);
  for (const Contender& contender : contenders) load_once(registry, source, contender, flags);
  for (int round = 0; round < flags.rounds; ++round) {
    for (Contender& contender : contenders) {
      std::vector<double> loads;
      for (int i = 0; i < flags.loads_per_round; ++i)
        loads.push_back(load_once(registry, source, contender, flags));
      contender.round_medians_ms.push_back(bench::median(loads));
    }
    std::cerr << fmt::format("\rround {}/{}", round + 1, flags.rounds) << std::flush;
  }
  std::cerr << "\n";
  const nlohmann::json json = report(flags, contenders);
  if (!flags.json_path.empty()) std::ofstream(flags.json_path) << json.dump(2) << "\n";
  return 0;
}

}  // namespace
}  // namespace inferlab::benchmarks

int main(int argc, char** argv) {
  inferlab::benchmarks::Flags flags;
  CLI::App app{"Native load from the plan cache vs ONNX Runtime session creation, interleaved"};
  app.add_option("model", flags.model, "Model (.onnx or a model directory)")->required();
  app.add_option("--rounds", flags.rounds, "Interleaved rounds (default 10)");
  app.add_option("--loads", flags.loads_per_round, "Loads per contender per round (default 3)");
  app.add_option("--threads", flags.threads, "Threads of both engines (default 1)");
  app.add_option("--cache", flags.cache_dir,
                 "Plan cache directory (default: a fresh temporary one)");
  app.add_option("--json", flags.json_path, "Write the figures as JSON");
  CLI11_PARSE(app, argc, argv);
  std::string temporary;
  if (flags.cache_dir.empty()) {
    temporary = (std::filesystem::temp_directory_path() / "inferlab-load-time-XXXXXX").string();
    flags.cache_dir = mkdtemp(temporary.data());
  }
  try {
    const int status = inferlab::benchmarks::run(flags);
    if (!temporary.empty()) std::filesystem::remove_all(temporary);
    return status;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    if (!temporary.empty()) std::filesystem::remove_all(temporary);
    return 1;
  }
}
