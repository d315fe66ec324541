// Latency figures are over the successful requests: an error answered at
// once would otherwise pull the percentiles down. Errors are counted beside
// them, by key, never dropped.
#include "inferlab/loadgen/load_report.h"

#include <fmt/format.h>

#include "inferlab/bench/statistics.h"

namespace inferlab::loadgen {

namespace {

nlohmann::json latency_json(const std::vector<double>& samples) {
  if (samples.empty()) return nullptr;
  const bench::Summary summary = bench::summarize(samples);
  return {{"count", summary.count},
          {"p50", summary.p50},
          {"p90", summary.p90},
          {"p95", summary.p95},
          {"p99", summary.p99},
          {"p999", summary.has_p999 ? nlohmann::json(summary.p999) : nlohmann::json(nullptr)},
          {"mean", summary.mean},
          {"stddev", summary.stddev},
          {"min", summary.min},
          {"max", summary.max}};
}

std::string ms_text(const nlohmann::json& value) {
  return value.is_number() ? fmt::format("{:.3f}", value.get<double>()) : "-";
}

void print_settings(std::FILE* out, const nlohmann::json& report) {
  const nlohmann::json& settings = report["settings"];
  fmt::print(out, "target      {}  model {}\n", report["target"].get<std::string>(),
             report["model"].get<std::string>());
  if (report.value("in_process", false)) {
    fmt::print(out, "engine      {} {}, {} instances x {} threads\n",
               report["backend"].get<std::string>(), report["version"].get<std::string>(),
               report["instances"].get<int>(), report["threads_per_instance"].get<int>());
  }
  if (report.contains("body"))
    fmt::print(out, "body        {}\n", report["body"]["summary"].get<std::string>());
  const std::string stop = settings["requests"].get<int64_t>() > 0
                               ? fmt::format("{} requests", settings["requests"].get<int64_t>())
                               : fmt::format("{:g} s", settings["duration_s"].get<double>());
  if (settings["rate"].get<double>() > 0) {
    fmt::print(
        out,
        "load        open loop, {:g} req/s scheduled, {} connections; {} after {:g} s warm-up\n",
        settings["rate"].get<double>(), settings["connections"].get<int>(), stop,
        settings["warmup_s"].get<double>());
  } else {
    fmt::print(out, "load        closed loop, concurrency {}; {} after {:g} s warm-up\n",
               settings["concurrency"].get<int>(), stop, settings["warmup_s"].get<double>());
  }
}

}  // namespace

nlohmann::json result_json(const LoadResult& result, int64_t samples_per_request) {
  const double window_s = result.window_s > 0 ? result.window_s : 1e-9;
  const double successes_per_s = static_cast<double>(result.window_successes) / window_s;
  nlohmann::json json = {
      {"requests", result.requests},
      {"successes", result.successes},
      {"errors", result.errors},
      {"error_details", result.error_details},
      {"window_s", result.window_s},
      {"throughput",
       {{"requests_per_s", static_cast<double>(result.window_replies) / window_s},
        {"window_replies", result.window_replies},
        {"window_successes", result.window_successes},
        {"successes_per_s", successes_per_s},
        {"samples_per_s", successes_per_s * static_cast<double>(samples_per_request)},
        {"samples_per_request", samples_per_request}}},
      {"latency_ms", latency_json(result.latency_ms)},
      {"client_cpu",
       {{"seconds", result.cpu_s},
        {"percent_of_core", 100.0 * result.cpu_s / window_s},
        {"us_per_request",
         result.requests > 0 ? 1e6 * result.cpu_s / static_cast<double>(result.requests) : 0.0}}},
      {"connections_opened", result.connections_opened},
      {"senders", result.senders}};
  if (!result.send_lag_ms.empty()) json["send_lag_ms"] = latency_json(result.send_lag_ms);
  return json;
}

void print_report(std::FILE* out, const nlohmann::json& report) {
  print_settings(out, report);
  const nlohmann::json& result = report["result"];
  const int64_t requests = result["requests"].get<int64_t>();
  const int64_t successes = result["successes"].get<int64_t>();
  fmt::print(out, "requests    {}: {} ok, {} errors ({} replies inside the {:.3f} s window)\n",
             requests, successes, requests - successes,
             result["throughput"]["window_replies"].get<int64_t>(),
             result["window_s"].get<double>());
  const nlohmann::json& throughput = result["throughput"];
  fmt::print(out, "throughput  {:.1f} req/s ({:.1f} ok/s), {:.1f} samples/s\n",
             throughput["requests_per_s"].get<double>(),
             throughput["successes_per_s"].get<double>(),
             throughput["samples_per_s"].get<double>());
  const nlohmann::json& latency = result["latency_ms"];
  if (latency.is_object()) {
    fmt::print(out, "latency ms  p50 {}  p90 {}  p95 {}  p99 {}  p99.9 {}\n",
               ms_text(latency["p50"]), ms_text(latency["p90"]), ms_text(latency["p95"]),
               ms_text(latency["p99"]), ms_text(latency["p999"]));
    fmt::print(out, "            mean {}  min {}  max {}  (over {} successful requests{})\n",
               ms_text(latency["mean"]), ms_text(latency["min"]), ms_text(latency["max"]),
               latency["count"].get<int64_t>(),
               report["settings"]["rate"].get<double>() > 0 ? ", from the scheduled time" : "");
  }
  if (result.contains("send_lag_ms") && result["send_lag_ms"].is_object()) {
    const nlohmann::json& lag = result["send_lag_ms"];
    fmt::print(out, "send lag ms p50 {}  p99 {}  max {}  (sent after the scheduled time)\n",
               ms_text(lag["p50"]), ms_text(lag["p99"]), ms_text(lag["max"]));
  }
  for (const auto& [key, count] : result["errors"].items()) {
    const std::string detail = result["error_details"].value(key, std::string());
    fmt::print(out, "error       {}: {}{}{}\n", key, count.get<int64_t>(),
               detail.empty() ? "" : "  e.g. ", detail);
  }
  const nlohmann::json& cpu = result["client_cpu"];
  fmt::print(out, "client CPU  {:.1f}% of one core, {:.1f} us per request{}\n",
             cpu["percent_of_core"].get<double>(), cpu["us_per_request"].get<double>(),
             report.value("in_process", false) ? " (the model's compute included)" : "");
  if (!report.value("in_process", false))
    fmt::print(out, "connections {} opened by {} senders\n",
               result["connections_opened"].get<int64_t>(), result["senders"].get<int>());
}

}  // namespace inferlab::loadgen
