// What this machine can do, measured: peak FP32 FMA throughput on one core
// and on all the cores used, and memory bandwidth, with the CPU's model and
// flags. The profiler's roofline divides achieved GFLOP/s and GB/s by these
// figures; `inferlab sysinfo` prints them (docs/sysinfo.md).
#pragma once

#include <nlohmann/json.hpp>

#include "inferlab/sysinfo/fma_peak.h"
#include "inferlab/sysinfo/memory_bandwidth.h"

namespace inferlab::sysinfo {

struct SysinfoOptions {
  int threads = 0;  // the "all cores" figures' thread count; 0: every usable CPU
  FmaIsa isa = FmaIsa::kAuto;
  // Short runs and small arrays (tests): the bandwidth is then not main
  // memory's, and the JSON says "quick": true.
  bool quick = false;
};

struct SystemMeasurement {
  bool quick = false;
  FmaPeakResult single_core;
  FmaPeakResult all_cores;  // `threads` pinned threads
  double scalar_fma_gflops = 0;
  MemoryBandwidthResult memory;
  nlohmann::json machine;  // bench::machine_record(): CPU model, flags, cores, memory
};

SystemMeasurement measure_system(const SysinfoOptions& options);

// Field names and units: docs/sysinfo.md.
nlohmann::json to_json(const SystemMeasurement& measurement);

}  // namespace inferlab::sysinfo
