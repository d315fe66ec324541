// One backend at one bench point: its worker process, the model opened in
// it, and everything measured there — load, cold start, warm-up, rounds,
// memory. A failure at any step turns the backend into an "error" row and
// never stops the others.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/registry.h"

namespace inferlab::bench {

struct RoundRecord {
  int index = 0;  // round number
  int order = 0;  // position of this backend within the round
  double settle_ms = 0;
  double duration_ms = 0;           // wall time of the counted iterations
  double idle_children_cpu_ms = 0;  // CPU the other workers used meanwhile
  std::vector<double> latencies_ms;
};

struct WarmupRecord {
  int runs = 0;
  double ms = 0;
  bool stable = false;
};

class BackendMeasurement {
 public:
  explicit BackendMeasurement(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void set_error(const std::string& message) { error_ = message; }
  pid_t worker_pid() const { return worker_pid_; }
  backends::Model* model() { return model_.get(); }

  // Each step records an error instead of throwing.
  void open(backends::BackendRegistry& registry, const backends::ModelSource& source,
            const backends::BackendOptions& options);
  // Binds `inputs`, times the first execute (cold start), keeps the outputs.
  void prepare(const backends::TensorMap& inputs);
  void warm_up(int max_runs, double max_ms);
  void run_round(const RoundRecord& plan, int min_iterations, double min_round_ms,
                 const std::vector<pid_t>& idle_workers);
  void finish();  // records memory, closes the worker

  const backends::TensorMap& outputs() const { return outputs_; }
  const std::vector<RoundRecord>& rounds() const { return rounds_; }
  // Raw figures (no statistics): startup, load, cold start, warm-up, memory, rounds.
  nlohmann::json raw_json() const;

 private:
  template <typename Step>
  void guarded(const char* step, Step&& body);
  void measure_both_loads(const backends::ModelSource& source,
                          const backends::BackendOptions& options);

  std::string name_;
  std::string error_;
  std::shared_ptr<backends::Backend> backend_;
  std::unique_ptr<backends::Model> model_;
  pid_t worker_pid_ = 0;
  nlohmann::json configuration_;
  std::string version_;
  double startup_ms_ = 0, load_ms_ = 0, cold_start_ms_ = 0;
  double channel_ms_total_ = 0;
  std::string plan_cache_outcome_;  // of the first open; empty without a cache
  double load_ms_uncached_ = 0, load_ms_cached_ = 0;
  int64_t calls_ = 0;
  WarmupRecord warmup_;
  backends::TensorMap outputs_;
  std::vector<RoundRecord> rounds_;
  double rss_before_open_mib_ = -1, rss_steady_mib_ = -1, rss_peak_mib_ = -1;
};

}  // namespace inferlab::bench
