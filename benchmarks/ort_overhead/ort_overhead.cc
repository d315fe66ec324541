// ort_overhead: is the onnxruntime backend as fast as ONNX Runtime used
// directly? In one process it interleaves rounds of (a) a minimal standalone
// ORT C++ loop and (b) the backend loaded through the registry (bind once,
// execute() in a loop), both timed the same way (steady_clock around the
// call), and prints each round's P50, the ratio of the medians of those P50s
// (backend / standalone) and the range of the per-round ratios.
//
//   ort_overhead ~/.cache/inferlab/models/resnet50_op17.onnx --threads 1 --json out.json
#include <CLI/CLI.hpp>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/registry.h"
#include "standalone_ort.h"

namespace inferlab::benchmarks {
namespace {

struct Flags {
  std::string model;
  int threads = 1;
  int rounds = 10;
  int iterations = 30;
  int warmup = 5;  // per round, untimed
  std::string json_path;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

double thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

struct RoundResult {
  double wall_p50_ms = 0;
  // CPU time of the calling thread: with one thread, the work itself, which
  // preemption by other processes on a loaded machine does not inflate.
  double caller_cpu_p50_ms = 0;
};

// P50s of `iterations` timed calls after `warmup` untimed ones.
RoundResult run_round(const std::function<int64_t()>& call, int warmup, int iterations) {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> wall_ms, cpu_ms;
  for (int i = 0; i < iterations; ++i) {
    const double cpu_start = thread_cpu_ms();
    const auto start = std::chrono::steady_clock::now();
    call();
    wall_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    cpu_ms.push_back(thread_cpu_ms() - cpu_start);
  }
  return {median(wall_ms), median(cpu_ms)};
}

struct Series {
  std::vector<double> wall_p50_ms, caller_cpu_p50_ms;
  void add(const RoundResult& result) {
    wall_p50_ms.push_back(result.wall_p50_ms);
    caller_cpu_p50_ms.push_back(result.caller_cpu_p50_ms);
  }
};

struct Measurements {
  Series standalone;
  Series backend;
  std::vector<double> round_ratios;  // backend / standalone wall P50, per round

  double ratio_of_medians() const {
    return median(backend.wall_p50_ms) / median(standalone.wall_p50_ms);
  }
  double cpu_ratio_of_medians() const {
    return median(backend.caller_cpu_p50_ms) / median(standalone.caller_cpu_p50_ms);
  }
};

Measurements interleave(const Flags& flags, const std::function<int64_t()>& run_standalone,
                        const std::function<int64_t()>& run_backend) {
  Measurements measured;
  std::printf(
      "round  standalone_p50_ms  backend_p50_ms  ratio   caller CPU P50 ms: "
      "standalone  backend\n");
  for (int round = 0; round < flags.rounds; ++round) {
    // Alternate which goes first so drift (thermal, other load) hits both alike.
    RoundResult a, b;
    if (round % 2 == 0) {
      a = run_round(run_standalone, flags.warmup, flags.iterations);
      b = run_round(run_backend, flags.warmup, flags.iterations);
    } else {
      b = run_round(run_backend, flags.warmup, flags.iterations);
      a = run_round(run_standalone, flags.warmup, flags.iterations);
    }
    measured.standalone.add(a);
    measured.backend.add(b);
    measured.round_ratios.push_back(b.wall_p50_ms / a.wall_p50_ms);
    std::printf("%5d  %17.3f  %14.3f  %.4f  %29.3f  %7.3f\n", round, a.wall_p50_ms, b.wall_p50_ms,
                measured.round_ratios.back(), a.caller_cpu_p50_ms, b.caller_cpu_p50_ms);
  }
  return measured;
}

void print_summary(const Measurements& measured) {
  const auto [min_ratio, max_ratio] =
      std::minmax_element(measured.round_ratios.begin(), measured.round_ratios.end());
  std::printf("median P50: standalone %.3f ms, backend %.3f ms; ratio %.4f (rounds %.4f..%.4f)\n",
              median(measured.standalone.wall_p50_ms), median(measured.backend.wall_p50_ms),
              measured.ratio_of_medians(), *min_ratio, *max_ratio);
  // Each round's pair ran back to back, so the median of the per-round
  // ratios resists load that comes and goes better than the ratio above.
  std::printf("median of per-round ratios: %.4f; caller CPU time ratio of medians: %.4f\n",
              median(measured.round_ratios), measured.cpu_ratio_of_medians());
}

nlohmann::json report_json(const Flags& flags, const Measurements& measured) {
  const auto [min_ratio, max_ratio] =
      std::minmax_element(measured.round_ratios.begin(), measured.round_ratios.end());
  return {{"model", flags.model},
          {"threads", flags.threads},
          {"rounds", flags.rounds},
          {"iterations", flags.iterations},
          {"warmup", flags.warmup},
          {"standalone_p50_ms", measured.standalone.wall_p50_ms},
          {"backend_p50_ms", measured.backend.wall_p50_ms},
          {"standalone_caller_cpu_p50_ms", measured.standalone.caller_cpu_p50_ms},
          {"backend_caller_cpu_p50_ms", measured.backend.caller_cpu_p50_ms},
          {"round_ratios", measured.round_ratios},
          {"ratio_of_medians", measured.ratio_of_medians()},
          {"min_round_ratio", *min_ratio},
          {"max_round_ratio", *max_ratio},
          {"median_round_ratio", median(measured.round_ratios)},
          {"caller_cpu_ratio_of_medians", measured.cpu_ratio_of_medians()}};
}

int run(const Flags& flags) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  const std::string library = registry.environment().onnxruntime_library;
  StandaloneOrt standalone(library, flags.model, flags.threads);

  backends::BackendOptions options;
  options.threads = flags.threads;
  options.opt_level = 3;
  auto backend = registry.get("onnxruntime", backends::Placement::kInProcess);
  auto model = backend->open(backends::ModelSource::resolve(flags.model), options);
  backends::TensorMap inputs;
  for (const auto& [name, tensor] : standalone.inputs()) inputs[name] = tensor;
  model->bind(inputs);

  std::printf("model %s, ORT %s (%s), %d thread(s), %d rounds x %d iterations (+%d warmup)\n",
              flags.model.c_str(), standalone.version().c_str(), library.c_str(), flags.threads,
              flags.rounds, flags.iterations, flags.warmup);
  const Measurements measured = interleave(
      flags, [&] { return standalone.run_once(); }, [&] { return model->execute(); });
  print_summary(measured);
  if (!flags.json_path.empty()) {
    nlohmann::json report = report_json(flags, measured);
    report["onnxruntime_version"] = standalone.version();
    report["library"] = library;
    report["backend_configuration"] = model->configuration();
    std::ofstream(flags.json_path) << report.dump(2) << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace inferlab::benchmarks

int main(int argc, char** argv) {
  inferlab::benchmarks::Flags flags;
  CLI::App app{"The onnxruntime backend against a minimal standalone ONNX Runtime loop"};
  app.add_option("model", flags.model, "ONNX model file (or model directory)")->required();
  app.add_option("--threads", flags.threads, "intra-op threads for both")
      ->check(CLI::PositiveNumber);
  app.add_option("--rounds", flags.rounds, "interleaved rounds")->check(CLI::PositiveNumber);
  app.add_option("--iterations", flags.iterations, "timed runs per round")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", flags.warmup, "untimed runs before each round")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", flags.json_path, "write the figures to this JSON file");
  CLI11_PARSE(app, argc, argv);
  try {
    return inferlab::benchmarks::run(flags);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ort_overhead: %s\n", error.what());
    return 1;
  }
}
