// A realistic inferlab-bench v1 result (docs/bench-schema.md) for the report
// tests: two points of a batch sweep x three backends — the reference
// onnxruntime, native (its accuracy fails at batch 4, with a noise warning),
// and python, which errored with a message holding a comma, quotes and a
// planted </script>.
#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::testing {

inline const char* kPlantedError =
    "python: model 'x', says \"no artifact\" </script><script>alert(1)</script>";

// Ten rounds of twelve latencies around `base_ms`, the same every call.
inline nlohmann::json fixture_rounds(double base_ms) {
  nlohmann::json rounds = nlohmann::json::array();
  for (int r = 0; r < 10; ++r) {
    nlohmann::json latencies = nlohmann::json::array();
    for (int i = 0; i < 12; ++i) {
      latencies.push_back(base_ms * (1.0 + 0.01 * ((r * 7 + i * 5) % 11) + (i == 11 ? 0.2 : 0.0)));
    }
    rounds.push_back({{"index", r},
                      {"order", r % 3},
                      {"settle_ms", 200.0},
                      {"iterations", 12},
                      {"duration_ms", base_ms * 12},
                      {"median_ms", base_ms * 1.05},
                      {"idle_children_cpu_ms", 0.4},
                      {"latencies_ms", latencies}});
  }
  return rounds;
}

inline nlohmann::json fixture_backend(const std::string& name, double base_ms, int batch,
                                      double reference_ms, double error, bool passed) {
  nlohmann::json backend = {
      {"name", name},
      {"status", "ok"},
      {"error", nullptr},
      {"version", "1.0"},
      {"configuration", nlohmann::json::object()},
      {"startup_ms", 12.5},
      {"load_ms", 40.25},
      {"cold_start_ms", base_ms * 1.5},
      {"warmup", {{"runs", 20}, {"ms", base_ms * 20}, {"stable", true}}},
      {"rounds", fixture_rounds(base_ms)},
      {"latency_ms",
       {{"count", 120},
        {"min", base_ms},
        {"max", base_ms * 1.3},
        {"mean", base_ms * 1.06},
        {"stddev", base_ms * 0.05},
        {"p50", base_ms * 1.05},
        {"p90", base_ms * 1.09},
        {"p95", base_ms * 1.1},
        {"p99", base_ms * 1.25},
        {"p999", nullptr}}},
      {"headline_ms", base_ms * 1.05},
      {"headline_interval_ms", {base_ms * 1.03, base_ms * 1.07}},
      {"trimmed_mean_ms", base_ms * 1.055},
      {"cv_round_medians", 0.012},
      {"noise_warning", nullptr},
      {"throughput",
       {{"samples_per_s", batch * 1000.0 / base_ms}, {"inferences_per_s", 1000.0 / base_ms}}},
      {"channel_ms_per_call", 0.08},
      {"memory_mib",
       {{"before_open", 20.0},
        {"peak", 140.0},
        {"steady", 120.0},
        {"peak_above_before_open", 120.0},
        {"steady_above_before_open", 100.0}}}};
  if (reference_ms > 0) {
    const double ratio = base_ms / reference_ms;
    backend["ratio_to_reference"] = {{"reference", "onnxruntime"},
                                     {"value", ratio},
                                     {"interval", {ratio * 0.97, ratio * 1.03}},
                                     {"verdict", ratio > 1.03 ? "slower" : "same"}};
    backend["accuracy"] = {{"reference", "onnxruntime"},
                           {"passed", passed},
                           {"outputs",
                            {{{"name", "output"},
                              {"cosine", 1.0 - error},
                              {"max_abs", error},
                              {"mean_abs", error / 10},
                              {"error", error},
                              {"max_relative", error * 10},
                              {"top1_agreement", 1.0},
                              {"top5_agreement", 1.0},
                              {"samples", batch},
                              {"passed", passed},
                              {"failure", passed ? "" : "error 3.2e-3 > 1e-4"}}}}};
  }
  return backend;
}

inline nlohmann::json fixture_point(int batch) {
  nlohmann::json native = fixture_backend("native", 9.0 * batch, batch, 7.0 * batch,
                                          batch == 1 ? 2e-6 : 3.2e-3, batch == 1);
  if (batch == 4)
    native["noise_warning"] = "round medians vary 7.5% (CV > 5%): another process ran";
  return {
      {"point", {{"batch", batch}, {"threads", 2}, {"shapes", {{"input", {batch, 3, 224, 224}}}}}},
      {"backends",
       {fixture_backend("onnxruntime", 7.0 * batch, batch, 0, 0, true),
        native,
        {{"name", "python"}, {"status", "error"}, {"error", kPlantedError}}}}};
}

inline nlohmann::json fixture_result() {
  return {{"schema", "inferlab-bench"},
          {"schema_version", 1},
          {"created", "2026-11-30T03:40:00Z"},
          {"command", "inferlab bench model/ --backends native,onnxruntime,python --batch 1,4"},
          {"model",
           {{"path", "/abs/model"},
            {"name", "mobilenet_v2"},
            {"sha256", "ab12"},
            {"artifact_hashes", {{"onnx", "cd34"}}}}},
          {"environment",
           {{"machine",
             {{"cpu_model", "Test CPU @ 2.0GHz"},
              {"cpu_flags", {"avx2"}},
              {"logical_cores", 2},
              {"usable_cores", 2},
              {"memory_mib", 23000},
              {"kernel", "Linux 6.1"},
              {"compiler", "GCC 12.2.0"},
              {"inferlab_version", "0.1.0"},
              {"inferlab_commit", "abc123"}}},
            {"backends",
             {{"onnxruntime", {{"version", "1.29.0"}, {"configuration", {{"opt_level", 0}}}}},
              {"native", {{"version", "0.1.0"}, {"configuration", nlohmann::json::object()}}}}}}},
          {"settings",
           {{"rounds", 10},
            {"min_iterations", 10},
            {"min_round_ms", 1000},
            {"order", "interleaved"},
            {"seed", 0},
            {"reference", "onnxruntime"},
            {"inputs", "random seed 0"},
            {"precision", "fp32"},
            {"swept", {"batch"}}}},
          {"points", {fixture_point(1), fixture_point(4)}}};
}

}  // namespace inferlab::testing
