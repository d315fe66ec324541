#include "inferlab/cli/bench_table.h"

#include <iostream>

#include <fmt/format.h>

#include "inferlab/runtime/compute_threads.h"

namespace inferlab::cli {

namespace {

std::string point_title(const nlohmann::json& point) {
  std::string title = "threads " + runtime::threads_label(point.at("threads").get<int>(),
                                                          point.value("threads_used", 0));
  if (!point.at("batch").is_null())
    title += fmt::format(", batch {}", point.at("batch").get<int64_t>());
  for (const auto& [name, shape] : point.at("shapes").items())
    title += ", " + name + " " + shape.dump();
  return title;
}

std::string ratio_text(const nlohmann::json& backend) {
  if (!backend.contains("ratio_to_reference")) return "reference";
  const nlohmann::json& ratio = backend["ratio_to_reference"];
  return fmt::format("{:.3f} [{:.3f}, {:.3f}] {}", ratio["value"].get<double>(),
                     ratio["interval"][0].get<double>(), ratio["interval"][1].get<double>(),
                     ratio["verdict"].get<std::string>());
}

std::string accuracy_text(const nlohmann::json& backend, bool color) {
  if (!backend.contains("accuracy")) return "";
  const nlohmann::json& accuracy = backend["accuracy"];
  if (accuracy.contains("error")) return "reference failed";
  double worst = 0;
  std::string top1;
  for (const auto& output : accuracy["outputs"]) {
    worst = std::max(worst, output.value("error", 0.0));
    if (output.contains("top1_agreement") && !output["top1_agreement"].is_null())
      top1 = fmt::format(" top1 {:.0f}%", output["top1_agreement"].get<double>() * 100.0);
  }
  const bool passed = accuracy["passed"].get<bool>();
  const std::string text = fmt::format("err {:.1e}{} {}", worst, top1, passed ? "ok" : "FAIL");
  return color && !passed ? "\033[31m" + text + "\033[0m" : text;
}

void print_backend_row(const nlohmann::json& backend, bool color) {
  const std::string name = backend.at("name").get<std::string>();
  if (backend.at("status") != "ok") {
    const std::string text = fmt::format(
        "{:<12} {}: {}", name, backend["status"] == "no_artifact" ? "no artifact" : "error",
        backend.value("error", ""));
    std::cout << (color ? "\033[31m" + text + "\033[0m" : text) << "\n";
    return;
  }
  const nlohmann::json& latency = backend["latency_ms"];
  const nlohmann::json& memory = backend["memory_mib"];
  std::cout << fmt::format(
      "{:<12} {:>9.3f} [{:.3f}, {:.3f}]  {:>9.3f} {:>9.3f} {:>9.3f}  {:>9.1f}  {:>8.1f} {:>8.1f} "
      "{:>8.1f}  "
      "{:>7.0f} {:>+7.0f}  {:<30} {}\n",
      name, backend["headline_ms"].get<double>(), backend["headline_interval_ms"][0].get<double>(),
      backend["headline_interval_ms"][1].get<double>(), backend["trimmed_mean_ms"].get<double>(),
      latency["p90"].get<double>(), latency["p99"].get<double>(),
      backend["throughput"]["samples_per_s"].get<double>(), backend["startup_ms"].get<double>(),
      backend["load_ms"].get<double>(), backend["cold_start_ms"].get<double>(),
      memory["peak"].get<double>(),
      memory["peak_above_before_open"].is_null() ? 0.0
                                                 : memory["peak_above_before_open"].get<double>(),
      ratio_text(backend), accuracy_text(backend, color));
  if (!backend["noise_warning"].is_null())
    std::cout << "             warning: " << backend["noise_warning"].get<std::string>() << "\n";
  if (backend.contains("plan_cache") && !backend["plan_cache"].is_null()) {
    const nlohmann::json& cache = backend["plan_cache"];
    std::cout << fmt::format("             plan cache: load {:.1f} ms without, {:.1f} ms with it\n",
                             cache["load_ms_uncached"].get<double>(),
                             cache["load_ms_cached"].get<double>());
  }
}

}  // namespace

void print_bench_table(const nlohmann::json& result, bool color) {
  const nlohmann::json& settings = result.at("settings");
  std::cout << fmt::format("model: {} ({})\n", result["model"]["name"].get<std::string>(),
                           result["model"]["path"].get<std::string>());
  std::cout << fmt::format(
      "{} rounds ({}), each >= {} iterations and >= {:.0f} ms; reference: {} (accuracy at opt "
      "level 0)\n",
      settings["rounds"].get<int>(), settings["order"].get<std::string>(),
      settings["min_iterations"].get<int>(), settings["min_round_ms"].get<double>(),
      settings["reference"].get<std::string>());
  for (const nlohmann::json& point : result.at("points")) {
    std::cout << "\n" << point_title(point.at("point")) << "\n";
    std::cout << fmt::format(
        "{:<12} {:>9} {:<17} {:>9} {:>9} {:>9}  {:>9}  {:>8} {:>8} {:>8}  {:>7} {:>7}  {:<30} {}\n",
        "backend", "median ms", "[95% CI]", "trim mean", "p90", "p99", "samples/s", "startup",
        "load ms", "cold ms", "peak MiB", "+model", "time / reference [95% CI]", "accuracy");
    for (const nlohmann::json& backend : point.at("backends")) print_backend_row(backend, color);
  }
}

bool bench_accuracy_passed(const nlohmann::json& result) {
  for (const nlohmann::json& point : result.at("points"))
    for (const nlohmann::json& backend : point.at("backends"))
      if (backend.value("status", "") == "ok" && !backend["accuracy"].value("passed", false))
        return false;
  return true;
}

}  // namespace inferlab::cli
