// measure_system() and its JSON, the record the profiler's roofline and
// `inferlab sysinfo --json` use: every documented field present, figures
// consistent with the parts they come from.
#include "inferlab/sysinfo/sysinfo.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

SystemMeasurement quick_measurement() {
  SysinfoOptions options;
  options.quick = true;
  return measure_system(options);
}

TEST(Sysinfo, JsonHasEveryField) {
  const nlohmann::json json = to_json(quick_measurement());
  for (const char* key :
       {"quick", "cpu_model", "cpu_flags", "usable_cores", "peak_gflops_single_core",
        "peak_gflops_all_cores", "memory_bandwidth_gbps", "fma", "memory", "machine"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  for (const char* key : {"isa", "chains", "lanes", "repetitions", "single_core", "all_cores",
                          "scalar_chain_gflops"}) {
    EXPECT_TRUE(json.at("fma").contains(key)) << "fma." << key;
  }
  for (const char* key : {"gflops", "threads", "cpus", "iterations_per_thread",
                          "flops_per_repetition", "repetition_gflops"}) {
    EXPECT_TRUE(json.at("fma").at("all_cores").contains(key)) << "fma.all_cores." << key;
  }
  for (const char* key :
       {"triad_gbps", "copy_gbps", "threads", "repetitions", "array_bytes", "total_bytes",
        "exceeds_4x_llc", "llc", "triad_repetition_gbps", "copy_repetition_gbps"}) {
    EXPECT_TRUE(json.at("memory").contains(key)) << "memory." << key;
  }
  for (const char* key : {"bytes", "level", "instances", "source"}) {
    EXPECT_TRUE(json.at("memory").at("llc").contains(key)) << "memory.llc." << key;
  }
  EXPECT_TRUE(json.at("quick").get<bool>());
  EXPECT_FALSE(json.at("cpu_flags").empty());
  EXPECT_NE(json.at("fma").at("isa"), "auto");
}

TEST(Sysinfo, AllCoresUseEveryUsableCpuByDefaultAndTheHeadlinesMatchTheParts) {
  const SystemMeasurement measurement = quick_measurement();
  const int cpus = static_cast<int>(usable_cpus().size());
  EXPECT_EQ(measurement.single_core.threads, 1);
  EXPECT_EQ(measurement.all_cores.threads, cpus);
  EXPECT_EQ(measurement.memory.threads, cpus);
  EXPECT_EQ(measurement.all_cores.isa, measurement.single_core.isa);
  const nlohmann::json json = to_json(measurement);
  EXPECT_DOUBLE_EQ(json.at("peak_gflops_single_core").get<double>(),
                   measurement.single_core.gflops);
  EXPECT_DOUBLE_EQ(json.at("peak_gflops_all_cores").get<double>(), measurement.all_cores.gflops);
  EXPECT_DOUBLE_EQ(json.at("memory_bandwidth_gbps").get<double>(), measurement.memory.triad_gbps);
  EXPECT_EQ(json.at("usable_cores").get<int>(), cpus);
}

TEST(Sysinfo, ThreadsOptionSetsTheAllCoresThreadCount) {
  SysinfoOptions options;
  options.quick = true;
  options.threads = 1;
  const SystemMeasurement measurement = measure_system(options);
  EXPECT_EQ(measurement.all_cores.threads, 1);
  EXPECT_EQ(measurement.memory.threads, 1);
  options.threads = -1;
  EXPECT_THROW(measure_system(options), Error);
}

}  // namespace
}  // namespace inferlab::sysinfo
