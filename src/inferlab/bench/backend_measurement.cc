#include "inferlab/bench/backend_measurement.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "inferlab/bench/statistics.h"
#include "inferlab/core/process_stats.h"
#include "inferlab/core/stopwatch.h"

namespace inferlab::bench {

namespace {

constexpr double kStableWindowChange = 0.05;  // medians of the last two windows within 5%
constexpr size_t kStableWindow = 3;

double mib(int64_t kib) { return kib < 0 ? -1.0 : static_cast<double>(kib) / 1024.0; }

bool warmup_is_stable(const std::vector<double>& runs_ms) {
  if (runs_ms.size() < 2 * kStableWindow) return false;
  const auto end = runs_ms.end();
  const double recent = median(std::vector<double>(end - kStableWindow, end));
  const double before = median(std::vector<double>(end - 2 * kStableWindow, end - kStableWindow));
  return std::abs(recent - before) <= kStableWindowChange * before;
}

}  // namespace

template <typename Step>
void BackendMeasurement::guarded(const char* step, Step&& body) {
  if (!ok()) return;
  try {
    body();
  } catch (const std::exception& error) {
    error_ = std::string(error.what());
    if (error_.find(step) == std::string::npos) error_ = std::string(step) + ": " + error_;
    model_.reset();  // stops the worker
  }
}

void BackendMeasurement::open(backends::BackendRegistry& registry,
                              const backends::ModelSource& source,
                              const backends::BackendOptions& options) {
  guarded("open", [&] {
    backend_ = registry.get(name_, backends::Placement::kChildProcess);
    model_ = backend_->open(source, options);
    if (!options.plan_cache_dir.empty()) measure_both_loads(source, options);
    configuration_ = model_->configuration();
    worker_pid_ = configuration_.value("worker_pid", pid_t{0});
    rss_before_open_mib_ = mib(configuration_.value("rss_before_open_kb", int64_t{-1}));
    startup_ms_ = model_->load_timings().startup_ms;
    load_ms_ = model_->load_timings().load_ms;
  });
}

// Load time with and without the plan cache. When the first open built the
// plan, a second open loads it and that model is the one measured; when it
// found the plan, one more open without the cache gives the uncached time.
void BackendMeasurement::measure_both_loads(const backends::ModelSource& source,
                                            const backends::BackendOptions& options) {
  const nlohmann::json cache =
      model_->configuration().value("plan_cache", nlohmann::json::object());
  plan_cache_outcome_ = cache.value("outcome", "");
  if (plan_cache_outcome_ == "loaded") {
    load_ms_cached_ = model_->load_timings().load_ms;
    backends::BackendOptions uncached = options;
    uncached.plan_cache_dir.clear();
    load_ms_uncached_ = backend_->open(source, uncached)->load_timings().load_ms;
    return;
  }
  load_ms_uncached_ = model_->load_timings().load_ms;
  model_.reset();  // its worker exits; the measured model gets a fresh one
  model_ = backend_->open(source, options);
  load_ms_cached_ = model_->load_timings().load_ms;
}

void BackendMeasurement::prepare(const backends::TensorMap& inputs) {
  guarded("run", [&] {
    model_->bind(inputs);
    cold_start_ms_ = static_cast<double>(model_->execute()) / 1e6;
    outputs_ = model_->fetch();
  });
}

void BackendMeasurement::warm_up(int max_runs, double max_ms) {
  guarded("warm-up", [&] {
    std::vector<double> runs_ms;
    const SteadyTime start = steady_now();
    while (static_cast<int>(runs_ms.size()) < max_runs && milliseconds_since(start) < max_ms) {
      runs_ms.push_back(static_cast<double>(model_->execute()) / 1e6);
      if (warmup_is_stable(runs_ms)) {
        warmup_.stable = true;
        break;
      }
    }
    warmup_.runs = static_cast<int>(runs_ms.size());
    warmup_.ms = milliseconds_since(start);
    rss_steady_mib_ = mib(process_memory_kib(worker_pid_, "VmRSS"));
  });
}

void BackendMeasurement::run_round(const RoundRecord& plan, int min_iterations, double min_round_ms,
                                   const std::vector<pid_t>& idle_workers) {
  guarded("round", [&] {
    RoundRecord round = plan;
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(plan.settle_ms));
    std::vector<double> idle_before;
    for (pid_t pid : idle_workers) idle_before.push_back(process_cpu_ms(pid));
    const SteadyTime start = steady_now();
    while (static_cast<int>(round.latencies_ms.size()) < min_iterations ||
           milliseconds_since(start) < min_round_ms) {
      // Latency is the engine's time, measured in the worker; what the call
      // cost beyond it is the channel.
      const SteadyTime call_start = steady_now();
      const int64_t engine_ns = model_->execute();
      channel_ms_total_ += static_cast<double>(nanoseconds_since(call_start) - engine_ns) / 1e6;
      round.latencies_ms.push_back(static_cast<double>(engine_ns) / 1e6);
      ++calls_;
    }
    round.duration_ms = milliseconds_since(start);
    for (size_t i = 0; i < idle_workers.size(); ++i)
      round.idle_children_cpu_ms += std::max(0.0, process_cpu_ms(idle_workers[i]) - idle_before[i]);
    rounds_.push_back(std::move(round));
  });
}

void BackendMeasurement::finish() {
  if (worker_pid_ > 0 && model_) rss_peak_mib_ = mib(process_memory_kib(worker_pid_, "VmHWM"));
  model_.reset();
}

nlohmann::json BackendMeasurement::raw_json() const {
  nlohmann::json rounds = nlohmann::json::array();
  for (const RoundRecord& round : rounds_) {
    rounds.push_back({{"index", round.index},
                      {"order", round.order},
                      {"settle_ms", round.settle_ms},
                      {"iterations", round.latencies_ms.size()},
                      {"duration_ms", round.duration_ms},
                      {"median_ms", round.latencies_ms.empty() ? 0.0 : median(round.latencies_ms)},
                      {"idle_children_cpu_ms", round.idle_children_cpu_ms},
                      {"latencies_ms", round.latencies_ms}});
  }
  const auto above = [&](double value) {
    return value < 0 || rss_before_open_mib_ < 0 ? nlohmann::json(nullptr)
                                                 : nlohmann::json(value - rss_before_open_mib_);
  };
  return {
      {"name", name_},
      {"configuration", configuration_},
      {"startup_ms", startup_ms_},
      {"load_ms", load_ms_},
      {"plan_cache", plan_cache_outcome_.empty()
                         ? nlohmann::json(nullptr)
                         : nlohmann::json({{"first_open", plan_cache_outcome_},
                                           {"load_ms_uncached", load_ms_uncached_},
                                           {"load_ms_cached", load_ms_cached_}})},
      {"cold_start_ms", cold_start_ms_},
      {"warmup", {{"runs", warmup_.runs}, {"ms", warmup_.ms}, {"stable", warmup_.stable}}},
      {"channel_ms_per_call", calls_ > 0 ? channel_ms_total_ / static_cast<double>(calls_) : 0.0},
      {"memory_mib",
       {{"before_open", rss_before_open_mib_},
        {"peak", rss_peak_mib_},
        {"steady", rss_steady_mib_},
        {"peak_above_before_open", above(rss_peak_mib_)},
        {"steady_above_before_open", above(rss_steady_mib_)}}},
      {"rounds", rounds}};
}

}  // namespace inferlab::bench
