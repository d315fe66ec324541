// measure_system() runs the FMA and bandwidth measurements in turn (never
// concurrently: each needs the cores to itself); see sysinfo.h.
#include "inferlab/sysinfo/sysinfo.h"

#include "inferlab/bench/environment_record.h"
#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

constexpr int kRepetitions = 5;
constexpr int kQuickRepetitions = 3;
constexpr double kSecondsPerRepetition = 0.2;
constexpr double kQuickSecondsPerRepetition = 0.03;
constexpr double kWarmUpSeconds = 0.2;
constexpr double kQuickWarmUpSeconds = 0.02;

nlohmann::json fma_json(const FmaPeakResult& result) {
  return {{"gflops", result.gflops},
          {"threads", result.threads},
          {"cpus", result.cpus},
          {"iterations_per_thread", result.iterations_per_thread},
          {"flops_per_repetition", result.flops_per_repetition},
          {"repetition_gflops", result.repetition_gflops}};
}

nlohmann::json memory_json(const MemoryBandwidthResult& result) {
  return {{"triad_gbps", result.triad_gbps},
          {"copy_gbps", result.copy_gbps},
          {"threads", result.threads},
          {"repetitions", result.repetitions},
          {"array_bytes", result.array_bytes},
          {"total_bytes", result.total_bytes},
          {"exceeds_4x_llc", result.exceeds_4x_llc},
          {"llc",
           {{"bytes", result.llc.bytes},
            {"level", result.llc.level},
            {"instances", result.llc.instances},
            {"source", result.llc.source}}},
          {"triad_repetition_gbps", result.triad_repetition_gbps},
          {"copy_repetition_gbps", result.copy_repetition_gbps}};
}

}  // namespace

SystemMeasurement measure_system(const SysinfoOptions& options) {
  if (options.threads < 0) {
    fail(ErrorCode::kInvalidArgument, "sysinfo threads must be >= 1 (or 0 for every usable CPU)");
  }
  const std::vector<int> cpus = usable_cpus();
  SystemMeasurement measurement;
  measurement.quick = options.quick;
  measurement.machine = bench::machine_record();

  FmaPeakOptions fma;
  fma.isa = options.isa;
  fma.cpus = cpus;
  fma.repetitions = options.quick ? kQuickRepetitions : kRepetitions;
  fma.seconds_per_repetition = options.quick ? kQuickSecondsPerRepetition : kSecondsPerRepetition;
  fma.warm_up_seconds = options.quick ? kQuickWarmUpSeconds : kWarmUpSeconds;
  fma.threads = 1;
  measurement.single_core = measure_fma_peak(fma);
  fma.threads = options.threads > 0 ? options.threads : static_cast<int>(cpus.size());
  measurement.all_cores = measure_fma_peak(fma);
  measurement.scalar_fma_gflops = measure_scalar_fma_gflops(fma.seconds_per_repetition);

  MemoryBandwidthOptions memory;
  memory.threads = fma.threads;
  memory.cpus = cpus;
  memory.repetitions = fma.repetitions;
  memory.quick = options.quick;
  measurement.memory = measure_memory_bandwidth(memory);
  return measurement;
}

nlohmann::json to_json(const SystemMeasurement& measurement) {
  const FmaPeakResult& single = measurement.single_core;
  nlohmann::json json;
  json["quick"] = measurement.quick;
  json["cpu_model"] = measurement.machine.value("cpu_model", "unknown");
  json["cpu_flags"] = measurement.machine.value("cpu_flags", nlohmann::json::array());
  json["usable_cores"] = measurement.machine.value("usable_cores", int64_t{0});
  json["peak_gflops_single_core"] = single.gflops;
  json["peak_gflops_all_cores"] = measurement.all_cores.gflops;
  json["memory_bandwidth_gbps"] = measurement.memory.triad_gbps;
  json["fma"] = {{"isa", fma_isa_name(single.isa)},
                 {"chains", single.chains},
                 {"lanes", fma_lanes(single.isa)},
                 {"repetitions", single.repetition_gflops.size()},
                 {"single_core", fma_json(single)},
                 {"all_cores", fma_json(measurement.all_cores)},
                 {"scalar_chain_gflops", measurement.scalar_fma_gflops}};
  json["memory"] = memory_json(measurement.memory);
  json["machine"] = measurement.machine;
  return json;
}

}  // namespace inferlab::sysinfo
