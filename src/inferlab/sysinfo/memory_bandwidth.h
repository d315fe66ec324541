// Memory bandwidth, STREAM-like: copy (c = a) and triad (a = b + s * c) over
// three arrays of doubles together at least 4x the last-level cache, so
// the figure is main memory's, not the cache's. Every usable core runs its
// own contiguous slice, pinned, after touching it first (page faults and
// first-touch placement outside the timing). Bytes count as STREAM counts
// them: what the kernel reads plus what it writes (copy 16, triad 24 bytes
// per element), not the write-allocate reads the hardware adds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inferlab::sysinfo {

struct LastLevelCache {
  int64_t bytes = 0;   // summed over the distinct caches the usable CPUs share
  int level = 0;       // 0 when unknown
  int instances = 0;   // distinct caches (e.g. one per CCX on AMD)
  std::string source;  // "sysfs", "cpuid" or "fallback"
};

// Read from /sys/devices/system/cpu/cpuN/cache/index*/ (highest level, unified
// or data) for every CPU in `cpus`; when sysfs says nothing (some VMs), what
// CPUID reports (the host socket's cache, passed through); else a 1 GiB
// "fallback".
LastLevelCache last_level_cache(const std::vector<int>& cpus);

struct MemoryBandwidthOptions {
  int threads = 0;        // 0: one per usable CPU
  std::vector<int> cpus;  // empty: every usable CPU
  int repetitions = 5;    // best one counts
  // 0: max(4 x LLC, kMinimumTotalBytes capped at half the available memory);
  // else this, rounded up to whole cache lines per array.
  int64_t total_bytes = 0;
  bool quick = false;  // kQuickTotalBytes unless total_bytes is set
};

inline constexpr int64_t kMinimumTotalBytes = int64_t{1} << 30;
inline constexpr int64_t kQuickTotalBytes = int64_t{48} << 20;

struct MemoryBandwidthResult {
  int threads = 0;
  int repetitions = 0;
  int64_t array_bytes = 0;  // each of the three arrays
  int64_t total_bytes = 0;  // all three
  bool quick = false;
  bool exceeds_4x_llc = false;  // false: the figures may be cache bandwidth
  LastLevelCache llc;
  double copy_gbps = 0;   // best repetition, 1e9 bytes/s
  double triad_gbps = 0;  // best repetition: the headline figure
  std::vector<double> copy_repetition_gbps;
  std::vector<double> triad_repetition_gbps;
};

MemoryBandwidthResult measure_memory_bandwidth(const MemoryBandwidthOptions& options);

}  // namespace inferlab::sysinfo
