// What `inferlab bench` measures and how (docs/bench.md). Defaults follow
// ../shared/methodology.md: rounds of at least 10 iterations and 1 s,
// warm-up until stable (at most 20 runs or 5 s), 10 interleaved rounds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/bench/accuracy.h"
#include "inferlab/core/shape.h"
#include "inferlab/inputs/input_range.h"

namespace inferlab::bench {

struct BenchOptions {
  std::string model_path;
  std::vector<std::string> backends = {"native", "onnxruntime"};
  // Accuracy and speed reference; "" = onnxruntime when available, else native.
  std::string reference;
  int rounds = 10;
  int min_iterations = 10;
  double min_round_ms = 1000.0;
  int warmup_max_runs = 20;
  double warmup_max_ms = 5000.0;
  double settle_ms = 200.0;
  bool shuffle = false;  // shuffled round order instead of A B A B ...
  uint64_t seed = 0;     // inputs, shuffling and bootstrap
  int opt_level = 3;
  std::string max_isa = "auto";  // native kernels' widest ISA (BackendOptions::max_isa)
  std::string precision = "fp32";
  // Sweeps (one variable at a time unless cross).
  std::vector<int> threads = {0};
  std::vector<int64_t> batch;                        // empty: the model's own batch
  std::map<std::string, std::vector<Shape>> shapes;  // per input, one or more shapes
  bool cross = false;
  std::string inputs_dir;  // .npy samples used in turn; "" = fixed-seed random
  // Ranges of the random inputs by name (--input-range); the rest by the
  // manifest, else by dtype (inputs/input_range.h).
  std::map<std::string, inputs::ValueRange> input_ranges;
  // Where each point's inputs are written as .npy (inputs/input_files.h):
  // DIR itself for one point, DIR/point<N> (from 1) for several; "" = nowhere.
  std::string save_inputs_dir;
  std::optional<Tolerance> tolerance;
  std::vector<std::string> classifier_outputs;  // besides the manifest's class_scores
  std::string command_line;
  // A call to a worker (open, a run) that takes longer kills it and makes
  // that backend an error row, so a hung engine never holds the bench.
  double call_timeout_s = 300.0;
  // Plan cache for backends of the native engine (load time is then
  // reported with and without it); empty: none.
  std::string plan_cache_dir;
  // Backend-specific settings (BackendOptions::settings) by backend name,
  // e.g. onnxruntime: denormals=flush.
  std::map<std::string, std::map<std::string, std::string>> backend_settings;
};

// One measured configuration.
struct BenchPoint {
  int threads = 0;
  std::optional<int64_t> batch;
  std::map<std::string, Shape> shapes;
};

// The points of the sweep; throws Error(kInvalidArgument) when two variables
// are swept without `cross`.
std::vector<BenchPoint> sweep_points(const BenchOptions& options);

// Names of the swept variables ("batch", "threads", "shape").
std::vector<std::string> swept_variables(const BenchOptions& options);

}  // namespace inferlab::bench
