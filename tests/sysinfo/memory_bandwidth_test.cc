// The bandwidth measurement's bookkeeping and plausibility (quick arrays;
// no timing thresholds): figures above zero and below 1 TB/s, array sizes
// as asked, and the last-level cache read from sysfs.
#include "inferlab/sysinfo/memory_bandwidth.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

constexpr double kTerabytePerSecond = 1000.0;

TEST(MemoryBandwidth, QuickFiguresAreAboveZeroAndBelowOneTerabytePerSecond) {
  MemoryBandwidthOptions options;
  options.quick = true;
  options.repetitions = 2;
  const MemoryBandwidthResult result = measure_memory_bandwidth(options);
  EXPECT_TRUE(result.quick);
  EXPECT_EQ(result.threads, static_cast<int>(usable_cpus().size()));
  EXPECT_LE(result.total_bytes, kQuickTotalBytes);
  EXPECT_EQ(result.total_bytes, 3 * result.array_bytes);
  for (double gbps : {result.triad_gbps, result.copy_gbps}) {
    EXPECT_GT(gbps, 0);
    EXPECT_LT(gbps, kTerabytePerSecond);
  }
  ASSERT_EQ(result.triad_repetition_gbps.size(), 2u);
  EXPECT_DOUBLE_EQ(result.triad_gbps,
                   std::max(result.triad_repetition_gbps[0], result.triad_repetition_gbps[1]));
}

TEST(MemoryBandwidth, ArraysAreTheAskedSizeInWholeCacheLines) {
  MemoryBandwidthOptions options;
  options.threads = 3;  // more threads than this 2-core machine has: they share CPUs
  options.repetitions = 1;
  options.total_bytes = 3 * 1000 * 64 + 17;
  const MemoryBandwidthResult result = measure_memory_bandwidth(options);
  EXPECT_EQ(result.threads, 3);
  EXPECT_EQ(result.array_bytes, 1001 * 64) << "rounded up to whole cache lines";
  EXPECT_GT(result.triad_gbps, 0);
}

TEST(MemoryBandwidth, LastLevelCacheComesFromSysfsWhenItIsThere) {
  const LastLevelCache llc = last_level_cache(usable_cpus());
  EXPECT_GT(llc.bytes, 0);
  if (llc.source == "sysfs") {
    EXPECT_GE(llc.level, 1);
    EXPECT_GE(llc.instances, 1);
  } else {
    const LastLevelCache without_sysfs = last_level_cache({});
    EXPECT_EQ(llc.bytes, without_sysfs.bytes) << "without sysfs, the same as with no CPUs";
    EXPECT_EQ(llc.source, without_sysfs.source);
  }
}

TEST(MemoryBandwidth, WithoutSysfsCachesTheCpuReportOrOneGibibyteIsUsed) {
  const LastLevelCache llc = last_level_cache({});
  if (llc.source == "cpuid") {
    EXPECT_GE(llc.level, 2);
    EXPECT_EQ(llc.instances, 1);
    EXPECT_GE(llc.bytes, int64_t{256} << 10);
  } else {
    EXPECT_EQ(llc.source, "fallback");
    EXPECT_EQ(llc.bytes, int64_t{1} << 30);
  }
}

TEST(MemoryBandwidth, RejectsZeroRepetitions) {
  MemoryBandwidthOptions options;
  options.quick = true;
  options.repetitions = 0;
  EXPECT_THROW(measure_memory_bandwidth(options), Error);
}

}  // namespace
}  // namespace inferlab::sysinfo
