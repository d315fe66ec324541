#include "inferlab/bench/bench_options.h"

#include "inferlab/core/error.h"

namespace inferlab::bench {

namespace {

// Every shape combination of the --shape sweep (each input's list crossed).
std::vector<std::map<std::string, Shape>> shape_combinations(
    const std::map<std::string, std::vector<Shape>>& shapes) {
  std::vector<std::map<std::string, Shape>> combinations = {{}};
  for (const auto& [name, choices] : shapes) {
    std::vector<std::map<std::string, Shape>> next;
    for (const auto& partial : combinations) {
      for (const Shape& shape : choices) {
        auto combined = partial;
        combined[name] = shape;
        next.push_back(std::move(combined));
      }
    }
    combinations = std::move(next);
  }
  return combinations;
}

}  // namespace

std::vector<std::string> swept_variables(const BenchOptions& options) {
  std::vector<std::string> swept;
  if (options.batch.size() > 1) swept.push_back("batch");
  if (options.threads.size() > 1) swept.push_back("threads");
  for (const auto& [name, choices] : options.shapes) {
    if (choices.size() > 1) {
      swept.push_back("shape");
      break;
    }
  }
  return swept;
}

std::vector<BenchPoint> sweep_points(const BenchOptions& options) {
  const std::vector<std::string> swept = swept_variables(options);
  if (swept.size() > 1 && !options.cross) {
    fail(ErrorCode::kInvalidArgument,
         "bench sweeps {} and {} at once: sweep one variable at a time, or pass --cross", swept[0],
         swept[1]);
  }
  if (options.threads.empty()) fail(ErrorCode::kInvalidArgument, "bench: --threads is empty");
  std::vector<std::optional<int64_t>> batches;
  for (int64_t batch : options.batch) {
    if (batch < 1) fail(ErrorCode::kInvalidArgument, "bench: --batch {} must be >= 1", batch);
    batches.push_back(batch);
  }
  if (batches.empty()) batches.push_back(std::nullopt);
  std::vector<BenchPoint> points;
  for (const auto& shapes : shape_combinations(options.shapes))
    for (const auto& batch : batches)
      for (int threads : options.threads) points.push_back({threads, batch, shapes});
  return points;
}

}  // namespace inferlab::bench
