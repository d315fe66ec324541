// file_pair: is model file B as fast as model file A on one backend? `inferlab
// bench` interleaves backends on one model; this interleaves two models on
// one backend, in one process: rounds of A and B back to back (which goes
// first alternates), each round's P50 per file, and the ratio A/B of the
// medians with a 95% bootstrap interval paired by round (bench/statistics.h),
// so drift that hits both files in a round cancels out. Both files get the
// same fixed-seed inputs, and their outputs are compared once.
//
//   file_pair resnet50_op17.onnx resnet50.optimized.onnx --backend onnxruntime --threads 1
//
// A ratio A/B above 1 means B is faster.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "inferlab/backends/registry.h"
#include "inferlab/bench/statistics.h"
#include "inferlab/core/error.h"

namespace inferlab::benchmarks {
namespace {

struct Flags {
  std::string model_a;
  std::string model_b;
  std::string backend = "onnxruntime";
  int threads = 1;
  int opt_level = 3;
  int rounds = 20;
  int iterations = 30;
  int warmup = 5;  // per round and file, untimed
  uint64_t seed = 0;
  std::string json_path;
};

// Fixed-seed inputs for every input of `model`: floats in [0, 1), integers in
// [0, 100) (token ids, indices); a symbolic dim is 1.
backends::TensorMap make_inputs(const backends::Model& model, uint64_t seed) {
  std::mt19937_64 random(seed);
  backends::TensorMap inputs;
  for (const model::ValueInfo& info : model.inputs()) {
    std::vector<int64_t> dims;
    for (const model::Dim& dim : info.dims) dims.push_back(dim.is_static() ? dim.value : 1);
    Tensor tensor(info.dtype, Shape(dims));
    if (info.dtype == DataType::kFloat32) {
      std::uniform_real_distribution<float> values(0.0f, 1.0f);
      for (int64_t i = 0; i < tensor.numel(); ++i) tensor.data<float>()[i] = values(random);
    } else if (info.dtype == DataType::kInt64) {
      std::uniform_int_distribution<int64_t> values(0, 99);
      for (int64_t i = 0; i < tensor.numel(); ++i) tensor.data<int64_t>()[i] = values(random);
    } else {
      fail(ErrorCode::kUnsupported, "input '{}': only float32 and int64 inputs are generated",
           info.name);
    }
    inputs[info.name] = std::move(tensor);
  }
  return inputs;
}

// Largest |a - b| / max(1, max |b|) over the outputs both files have; an
// output of B that A lacks, or of another type or size, is an error.
double output_difference(const backends::TensorMap& a, const backends::TensorMap& b) {
  double worst = 0;
  for (const auto& [name, reference] : b) {
    auto it = a.find(name);
    if (it == a.end() || it->second.dtype() != reference.dtype() ||
        it->second.numel() != reference.numel())
      fail(ErrorCode::kInvalidArgument, "output '{}' differs in name, type or size", name);
    if (reference.dtype() != DataType::kFloat32) continue;
    double scale = 1, difference = 0;
    for (int64_t i = 0; i < reference.numel(); ++i) {
      scale = std::max(scale, std::fabs(double{reference.data<float>()[i]}));
      difference = std::max(difference, std::fabs(double{it->second.data<float>()[i]} -
                                                  double{reference.data<float>()[i]}));
    }
    worst = std::max(worst, difference / scale);
  }
  return worst;
}

// P50 of `iterations` timed execute() calls after `warmup` untimed ones.
double round_p50_ms(backends::Model& model, int warmup, int iterations) {
  for (int i = 0; i < warmup; ++i) model.execute();
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    model.execute();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  return bench::median(ms);
}

int run(const Flags& flags) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  backends::BackendOptions options;
  options.threads = flags.threads;
  options.opt_level = flags.opt_level;
  auto backend = registry.get(flags.backend);
  auto a = backend->open(backends::ModelSource::resolve(flags.model_a), options);
  auto b = backend->open(backends::ModelSource::resolve(flags.model_b), options);
  const backends::TensorMap inputs = make_inputs(*a, flags.seed);
  const double difference = output_difference(b->run(inputs), a->run(inputs));
  a->bind(inputs);
  b->bind(inputs);
  std::printf("backend %s, %d thread(s), opt level %d, %d rounds x %d iterations (+%d warm-up)\n",
              flags.backend.c_str(), flags.threads, flags.opt_level, flags.rounds, flags.iterations,
              flags.warmup);
  std::printf("A %s\nB %s\noutputs: max relative difference %.3g\n", flags.model_a.c_str(),
              flags.model_b.c_str(), difference);
  std::printf("round  A_p50_ms  B_p50_ms  A/B\n");
  std::vector<double> a_rounds, b_rounds;
  for (int round = 0; round < flags.rounds; ++round) {
    double a_ms = 0, b_ms = 0;
    if (round % 2 == 0) {
      a_ms = round_p50_ms(*a, flags.warmup, flags.iterations);
      b_ms = round_p50_ms(*b, flags.warmup, flags.iterations);
    } else {
      b_ms = round_p50_ms(*b, flags.warmup, flags.iterations);
      a_ms = round_p50_ms(*a, flags.warmup, flags.iterations);
    }
    a_rounds.push_back(a_ms);
    b_rounds.push_back(b_ms);
    std::printf("%5d  %8.3f  %8.3f  %.4f\n", round, a_ms, b_ms, a_ms / b_ms);
  }
  bench::BootstrapOptions bootstrap;
  bootstrap.seed = flags.seed;
  const double ratio = bench::median(a_rounds) / bench::median(b_rounds);
  const bench::Interval interval = bench::bootstrap_ratio_interval(a_rounds, b_rounds, bootstrap);
  std::printf("median P50: A %.3f ms, B %.3f ms; A/B %.4f, 95%% interval [%.4f, %.4f]\n",
              bench::median(a_rounds), bench::median(b_rounds), ratio, interval.low, interval.high);
  if (!flags.json_path.empty()) {
    const nlohmann::json report = {{"backend", flags.backend},
                                   {"threads", flags.threads},
                                   {"opt_level", flags.opt_level},
                                   {"rounds", flags.rounds},
                                   {"iterations", flags.iterations},
                                   {"warmup", flags.warmup},
                                   {"model_a", flags.model_a},
                                   {"model_b", flags.model_b},
                                   {"a_p50_ms", a_rounds},
                                   {"b_p50_ms", b_rounds},
                                   {"ratio_a_over_b", ratio},
                                   {"interval", {interval.low, interval.high}},
                                   {"output_difference", difference},
                                   {"configuration_a", a->configuration()}};
    std::ofstream(flags.json_path) << report.dump(2) << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace inferlab::benchmarks

int main(int argc, char** argv) {
  inferlab::benchmarks::Flags flags;
  CLI::App app{"Two model files on one backend, interleaved: P50 ratio A/B with a 95% interval"};
  app.add_option("a", flags.model_a, "Model A (.onnx or model directory), e.g. the original")
      ->required();
  app.add_option("b", flags.model_b, "Model B, e.g. the `inferlab optimize -o` file")->required();
  app.add_option("--backend", flags.backend, "Backend both files run on (default onnxruntime)");
  app.add_option("--threads", flags.threads, "Threads (default 1)")->check(CLI::PositiveNumber);
  app.add_option("--opt-level", flags.opt_level, "Backend optimization level (default 3)")
      ->check(CLI::Range(0, 3));
  app.add_option("--rounds", flags.rounds, "Interleaved rounds (default 20)")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", flags.iterations, "Timed runs per round and file (default 30)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", flags.warmup, "Untimed runs before each (default 5)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", flags.seed, "Seed of inputs and bootstrap (default 0)");
  app.add_option("--json", flags.json_path, "Also write the figures to this JSON file");
  CLI11_PARSE(app, argc, argv);
  try {
    return inferlab::benchmarks::run(flags);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "file_pair: %s\n", error.what());
    return 1;
  }
}
