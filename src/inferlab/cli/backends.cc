// `inferlab backends`: every backend InferLab knows, whether it can run on
// this machine (and why not), its exact version, devices and configuration.
// Probing loads each engine (a worker process for PyTorch-based ones), so
// the start-up cost shown is real.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "inferlab/backends/registry.h"
#include "inferlab/cli/cli_common.h"

namespace inferlab::cli {

namespace {

struct BackendsFlags {
  std::string json_target;
  bool verbose = false;
};

nlohmann::json info_json(const backends::BackendInfo& info) {
  nlohmann::json json = {{"name", info.name}, {"available", info.available}};
  if (!info.available) {
    json["reason"] = info.unavailable_reason;
    return json;
  }
  json["version"] = info.version;
  json["devices"] = info.devices;
  json["startup_ms"] = info.startup_ms;
  json["configuration"] = info.configuration;
  return json;
}

std::string summary_line(const std::string& key, const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  // Multi-line reports (build configurations) are for --verbose and --json.
  if (const size_t newline = text.find('\n'); newline != std::string::npos)
    text = text.substr(0, newline) + " ...";
  if (text.size() > 160) text = text.substr(0, 157) + "...";
  return fmt::format("    {}: {}\n", key, text);
}

void print_backend(const nlohmann::json& backend, bool verbose) {
  const std::string name = backend["name"].get<std::string>();
  if (!backend["available"].get<bool>()) {
    std::cout << fmt::format("{:<12} unavailable: {}\n", name,
                             backend["reason"].get<std::string>());
    return;
  }
  std::string devices;
  for (const auto& device : backend["devices"])
    devices += (devices.empty() ? "" : ",") + device.get<std::string>();
  std::cout << fmt::format("{:<12} available    {:<28} devices {:<10} startup {:.0f} ms\n", name,
                           backend["version"].get<std::string>(), devices,
                           backend["startup_ms"].get<double>());
  for (const auto& [key, value] : backend["configuration"].items()) {
    if (verbose || value.is_string() || value.is_number() || value.is_boolean())
      std::cout << summary_line(key, value);
  }
}

int list_backends(const BackendsFlags& flags) {
  backends::BackendRegistry registry(backends::BackendEnvironment::from_process_environment());
  nlohmann::json report = {{"environment", registry.environment().to_json()},
                           {"backends", nlohmann::json::array()}};
  for (const std::string& name : backends::BackendRegistry::known_names()) {
    if (isatty(STDERR_FILENO) && flags.json_target != "-")
      fmt::print(stderr, "probing {}...\r", name);
    report["backends"].push_back(info_json(registry.probe(name)));
  }
  if (flags.json_target != "-") {
    for (const auto& backend : report["backends"]) print_backend(backend, flags.verbose);
  }
  if (!flags.json_target.empty()) write_json(report, flags.json_target);
  return 0;
}

}  // namespace

void add_backends_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<BackendsFlags>();
  CLI::App* app = root.add_subcommand(
      "backends", "List the engines InferLab can run models on, with versions and configuration");
  app->add_option("--json", flags->json_target,
                  "Also write the list as JSON to FILE ('-': stdout only)");
  app->add_flag("--verbose,-v", flags->verbose, "Show every configuration entry");
  commands.push_back(Command{app, [flags] { return list_backends(*flags); }});
}

}  // namespace inferlab::cli
