// load_time: how long does it take before a model can run? In one process it
// interleaves rounds of three loads of the same model — the native engine
// from its plan cache (docs/plan-format.md), the native engine without it,
// and ONNX Runtime's session creation (all optimizations, the onnxruntime
// backend) — and prints each one's median over rounds and the ratios to ONNX
// Runtime with paired 95% bootstrap intervals.
//
//   load_time ~/.cache/inferlab/models/resnet50_op17.onnx --rounds 10 --json out.json
#include <CLI/CLI.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "inferlab/backends/model_source.h"
#include "inferlab/backends/registry.h"
#include "inferlab/bench/statistics.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"

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
  std::vector<double> load_medians_ms;   // per round
  std::vector<double> ready_medians_ms;  // load + first run, per round
  int64_t packed_here = -1;              // native: weights reordered by the last load
};

struct LoadTime {
  double load_ms = 0;
  double ready_ms = 0;
};

LoadTime load_once(backends::BackendRegistry& registry, const backends::ModelSource& source,
                   Contender& contender, const Flags& flags) {
  backends::BackendOptions options;
  options.threads = flags.threads;
  if (contender.cached) options.plan_cache_dir = flags.cache_dir;
  auto model =
      registry.get(contender.backend, backends::Placement::kInProcess)->open(source, options);
  const double load_ms = model->load_timings().load_ms;
  const backends::TensorMap inputs =
      inputs::random_inputs(model->inputs(), inputs::resolve_input_shapes(model->inputs(), {}),
                            inputs::input_ranges(model->inputs(), {}, source), 1);
  const auto start = std::chrono::steady_clock::now();
  model->run(inputs);
  const double first_run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const nlohmann::json configuration = model->configuration();
  if (contender.backend == "native") {
    contender.packed_here = configuration["weights"]["packed_here"].get<int64_t>();
  }
  if (contender.cached) {
    if (configuration["plan_cache"]["outcome"].get<std::string>() != "loaded")
      throw Error(ErrorCode::kRuntime, "the plan was not loaded from the cache");
    if (contender.packed_here != 0)
      fail(ErrorCode::kRuntime, "a load from the plan cache reordered {} weights",
           contender.packed_here);
  }
  return {load_ms, load_ms + first_run_ms};
}

// The median and, against the peer's round medians, the ratio with its
// paired 95% bootstrap interval.
nlohmann::json figure(const std::vector<double>& mine, const std::vector<double>& peer,
                      std::string& text) {
  const double median = bench::median(mine);
  nlohmann::json json = {{"median_ms", median}, {"round_medians_ms", mine}};
  if (&mine == &peer) {
    text = fmt::format("{:>10.2f}  {:<22}", median, "reference");
    return json;
  }
  const double ratio = median / bench::median(peer);
  const bench::Interval interval = bench::bootstrap_ratio_interval(mine, peer, {10000, 0.95, 0});
  json["ratio_to_onnxruntime"] = {{"value", ratio}, {"interval", {interval.low, interval.high}}};
  text = fmt::format("{:>10.2f}  {:<22}", median,
                     fmt::format("{:.3f} [{:.3f}, {:.3f}]", ratio, interval.low, interval.high));
  return json;
}

nlohmann::json report(const Flags& flags, const std::vector<Contender>& contenders) {
  const Contender& peer = contenders.back();
  nlohmann::json json = {{"model", flags.model},
                         {"rounds", flags.rounds},
                         {"loads_per_round", flags.loads_per_round},
                         {"threads", flags.threads},
                         {"contenders", nlohmann::json::array()}};
  std::cout << fmt::format("{:<22} {:>10}  {:<22}  {:>10}  {:<22}  {}\n", "", "load ms",
                           "ratio to onnxruntime", "ready ms", "ratio to onnxruntime",
                           "weights reordered");
  for (const Contender& contender : contenders) {
    std::string load_text;
    std::string ready_text;
    nlohmann::json entry = {
        {"label", contender.label},
        {"load", figure(contender.load_medians_ms, peer.load_medians_ms, load_text)},
        {"ready", figure(contender.ready_medians_ms, peer.ready_medians_ms, ready_text)}};
    std::string reordered = "-";
    if (contender.packed_here >= 0) {
      entry["weights_reordered"] = contender.packed_here;
      reordered = std::to_string(contender.packed_here);
    }
    std::cout << fmt::format("{:<22} {}  {}  {}\n", contender.label, load_text, ready_text,
                             reordered);
    json["contenders"].push_back(entry);
  }
  return json;
}

int run(const Flags& flags) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const backends::ModelSource source = backends::ModelSource::resolve(flags.model);
  std::vector<Contender> contenders = {{"native, plan cache", "native", true, {}, {}, -1},
                                       {"native, no cache", "native", false, {}, {}, -1},
                                       {"onnxruntime session", "onnxruntime", false, {}, {}, -1}};
  // Prime: the plan is saved and every engine's code paged in before timing.
  backends::BackendOptions save;
  save.threads = flags.threads;
  save.plan_cache_dir = flags.cache_dir;
  registry.get("native", backends::Placement::kInProcess)->open(source, save);
  for (Contender& contender : contenders) load_once(registry, source, contender, flags);
  for (int round = 0; round < flags.rounds; ++round) {
    for (Contender& contender : contenders) {
      std::vector<double> loads;
      std::vector<double> readies;
      for (int i = 0; i < flags.loads_per_round; ++i) {
        const LoadTime time = load_once(registry, source, contender, flags);
        loads.push_back(time.load_ms);
        readies.push_back(time.ready_ms);
      }
      contender.load_medians_ms.push_back(bench::median(loads));
      contender.ready_medians_ms.push_back(bench::median(readies));
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
