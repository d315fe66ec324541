// `inferlab sysinfo`: measures this machine's peak FP32 FMA throughput (one
// core, all cores used) and memory bandwidth, and prints them with the CPU
// model and flags; --json writes the same figures for the profiler's
// roofline and for results. What is measured and how: docs/sysinfo.md.
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "inferlab/cli/cli_common.h"
#include "inferlab/sysinfo/sysinfo.h"
#include "inferlab/sysinfo/sysinfo_record.h"

namespace inferlab::cli {

namespace {

constexpr size_t kFlagsWidth = 88;
constexpr int kMaxThreads = 4096;

struct SysinfoFlags {
  std::string json_target;
  int threads = 0;
  std::string isa = "auto";
  bool quick = false;
  bool no_save = false;
};

// The flags, space-separated, wrapped and indented under "flags:".
void print_cpu_flags(const nlohmann::json& flags) {
  std::string line;
  std::cout << "flags:";
  for (const nlohmann::json& flag : flags) {
    const std::string name = flag.get<std::string>();
    if (!line.empty() && line.size() + 1 + name.size() > kFlagsWidth) {
      std::cout << "  " << line << "\n      ";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + name;
  }
  std::cout << "  " << line << "\n";
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (int cpu : cpus) text += (text.empty() ? "" : ",") + std::to_string(cpu);
  return text;
}

void print_fma(const sysinfo::SystemMeasurement& measurement) {
  const sysinfo::FmaPeakResult& single = measurement.single_core;
  const sysinfo::FmaPeakResult& all = measurement.all_cores;
  std::cout << fmt::format(
      "\nFP32 FMA peak: {} kernel, {} independent chains x {} floats (the fastest count "
      "tried), best of {} runs\n",
      sysinfo::fma_isa_name(single.isa), single.chains, sysinfo::fma_lanes(single.isa),
      single.repetition_gflops.size());
  std::cout << fmt::format("  {:<22} {:>9.1f} GFLOP/s  (CPU {})\n", "1 core", single.gflops,
                           cpu_list(single.cpus));
  std::cout << fmt::format("  {:<22} {:>9.1f} GFLOP/s  (CPUs {}; {:.2f}x one core)\n",
                           fmt::format("{} threads, pinned", all.threads), all.gflops,
                           cpu_list(all.cpus), all.gflops / single.gflops);
  std::cout << fmt::format("  {:<22} {:>9.2f} GFLOP/s  (one dependent chain: latency-bound)\n",
                           "scalar FMA chain", measurement.scalar_fma_gflops);
}

void print_memory(const sysinfo::MemoryBandwidthResult& memory) {
  const sysinfo::LastLevelCache& llc = memory.llc;
  std::cout << fmt::format(
      "\nMemory bandwidth: STREAM-like, {} threads, 3 arrays x {} = {}, best of {} runs\n",
      memory.threads, human_bytes(memory.array_bytes), human_bytes(memory.total_bytes),
      memory.repetitions);
  std::cout << fmt::format(
      "  last-level cache: {} (L{}, {} instance{}, from {}); arrays {} 4x it\n",
      human_bytes(llc.bytes), llc.level, llc.instances, llc.instances == 1 ? "" : "s", llc.source,
      memory.exceeds_4x_llc ? "exceed" : "DO NOT exceed");
  std::cout << fmt::format("  {:<22} {:>9.1f} GB/s  (a = b + s*c: 24 bytes per element)\n", "triad",
                           memory.triad_gbps);
  std::cout << fmt::format("  {:<22} {:>9.1f} GB/s  (c = a: 16 bytes per element)\n", "copy",
                           memory.copy_gbps);
}

void print_measurement(const sysinfo::SystemMeasurement& measurement) {
  const nlohmann::json& machine = measurement.machine;
  std::cout << fmt::format("cpu:    {}\n", machine.value("cpu_model", "unknown"));
  std::cout << fmt::format(
      "cores:  {} usable of {} logical; memory {} MiB\n", machine.value("usable_cores", int64_t{0}),
      machine.value("logical_cores", int64_t{0}), machine.value("memory_mib", int64_t{0}));
  print_cpu_flags(machine.value("cpu_flags", nlohmann::json::array()));
  if (measurement.quick) {
    std::cout << "\nquick mode: short runs and small arrays; the bandwidth is likely the "
                 "cache's, not main memory's\n";
  }
  print_fma(measurement);
  print_memory(measurement.memory);
}

int run_sysinfo(const SysinfoFlags& flags) {
  sysinfo::SysinfoOptions options;
  options.threads = flags.threads;
  options.isa = sysinfo::parse_fma_isa(flags.isa);
  options.quick = flags.quick;
  const sysinfo::SystemMeasurement measurement = sysinfo::measure_system(options);
  const nlohmann::json record = sysinfo::to_json(measurement);
  const bool human = flags.json_target != "-";
  if (human) print_measurement(measurement);
  // Only a full measurement of the whole machine serves as the profiler's
  // default roofline.
  if (!flags.no_save && !flags.quick && flags.threads == 0 && flags.isa == "auto") {
    const std::string path = sysinfo::default_record_path();
    sysinfo::save_record(record, path);
    if (human) std::cout << fmt::format("\nsaved for `inferlab profile`: {}\n", path);
  }
  if (!flags.json_target.empty()) write_json(record, flags.json_target);
  return 0;
}

}  // namespace

void add_sysinfo_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<SysinfoFlags>();
  CLI::App* app = root.add_subcommand(
      "sysinfo", "Measure this machine's peak FP32 FMA GFLOP/s and memory bandwidth");
  app->add_option("--json", flags->json_target,
                  "Also write the figures as JSON to FILE ('-': stdout, instead of the table)");
  app->add_option("--threads", flags->threads,
                  "Threads for the all-cores figures, one pinned per usable CPU (default: all)")
      ->check(CLI::Range(1, kMaxThreads));
  app->add_option("--isa", flags->isa,
                  "FMA kernel: auto (widest the CPU has), avx512, avx2 or portable")
      ->check(CLI::IsMember({"auto", "avx512", "avx2", "portable"}));
  app->add_flag("--quick", flags->quick,
                "Short runs and small arrays (for tests); the output says so");
  app->add_flag("--no-save", flags->no_save,
                "Do not keep the record in the cache as `inferlab profile`'s default roofline");
  commands.push_back(Command{app, [flags] { return run_sysinfo(*flags); }});
}

}  // namespace inferlab::cli
