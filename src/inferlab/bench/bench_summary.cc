#include "inferlab/bench/bench_summary.h"

#include <fmt/format.h>

#include <fstream>
#include <thread>

#include "inferlab/bench/statistics.h"

namespace inferlab::bench {

namespace {

constexpr double kNoisyCv = 0.05;

std::vector<double> round_medians(const nlohmann::json& backend) {
  std::vector<double> medians;
  for (const nlohmann::json& round : backend.at("rounds"))
    medians.push_back(round.at("median_ms").get<double>());
  return medians;
}

double load_average() {
  std::ifstream file("/proc/loadavg");
  double one_minute = 0;
  file >> one_minute;
  return one_minute;
}

std::string noise_reason(const nlohmann::json& backend, double cv) {
  double idle_cpu_ms = 0, duration_ms = 0;
  for (const nlohmann::json& round : backend.at("rounds")) {
    idle_cpu_ms += round.at("idle_children_cpu_ms").get<double>();
    duration_ms += round.at("duration_ms").get<double>();
  }
  const double cores = static_cast<double>(std::thread::hardware_concurrency());
  std::string reason;
  if (duration_ms > 0 && idle_cpu_ms > 0.05 * duration_ms)
    reason = fmt::format("idle workers used {:.0f} ms of CPU during its rounds", idle_cpu_ms);
  else if (load_average() > cores * 0.75)
    reason =
        fmt::format("the machine is busy (load average {:.1f} on {} cores)", load_average(), cores);
  else
    reason = "other processes or CPU frequency changes";
  return fmt::format("round medians vary by {:.1f}% (CV > 5%); likely cause: {}", cv * 100.0,
                     reason);
}

}  // namespace

void add_latency_statistics(nlohmann::json& backend, int64_t batch, uint64_t seed) {
  std::vector<double> pooled;
  double wall_ms = 0;
  for (const nlohmann::json& round : backend.at("rounds")) {
    for (const nlohmann::json& value : round.at("latencies_ms"))
      pooled.push_back(value.get<double>());
    wall_ms += round.at("duration_ms").get<double>();
  }
  if (pooled.empty()) return;
  const Summary summary = summarize(pooled);
  backend["latency_ms"] = {
      {"count", summary.count},
      {"min", summary.min},
      {"max", summary.max},
      {"mean", summary.mean},
      {"stddev", summary.stddev},
      {"p50", summary.p50},
      {"p90", summary.p90},
      {"p95", summary.p95},
      {"p99", summary.p99},
      {"p999", summary.has_p999 ? nlohmann::json(summary.p999) : nlohmann::json()}};
  const std::vector<double> medians = round_medians(backend);
  backend["headline_ms"] = median(medians);
  const Interval interval = bootstrap_median_interval(medians, {10000, 0.95, seed});
  backend["headline_interval_ms"] = {interval.low, interval.high};
  backend["trimmed_mean_ms"] = trimmed_mean(pooled, 0.10);
  const double cv = coefficient_of_variation(medians);
  backend["cv_round_medians"] = cv;
  backend["noise_warning"] =
      cv > kNoisyCv ? nlohmann::json(noise_reason(backend, cv)) : nlohmann::json();
  const double inferences = static_cast<double>(pooled.size());
  backend["throughput"] = {
      {"samples_per_s",
       wall_ms > 0 ? static_cast<double>(batch) * inferences * 1000.0 / wall_ms : 0.0},
      {"inferences_per_s", wall_ms > 0 ? inferences * 1000.0 / wall_ms : 0.0}};
}

void add_ratio_to_reference(nlohmann::json& backend, const nlohmann::json& reference,
                            uint64_t seed) {
  const std::vector<double> mine = round_medians(backend);
  const std::vector<double> theirs = round_medians(reference);
  if (mine.empty() || mine.size() != theirs.size()) return;
  const double ratio = median(mine) / median(theirs);
  const Interval interval = bootstrap_ratio_interval(mine, theirs, {10000, 0.95, seed});
  std::string verdict = "same";
  if (!interval.contains(1.0)) verdict = interval.high < 1.0 ? "faster" : "slower";
  backend["ratio_to_reference"] = {{"reference", reference.at("name")},
                                   {"value", ratio},
                                   {"interval", {interval.low, interval.high}},
                                   {"verdict", verdict}};
}

}  // namespace inferlab::bench
