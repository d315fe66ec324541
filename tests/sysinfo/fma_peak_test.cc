// The FMA peak measurement on whatever machine runs the tests: no timing
// thresholds, only plausibility bounds any CPU must meet (the issue's: at
// least 8x one dependent scalar FMA chain, at most 64 FLOP/cycle x 6 GHz =
// 384 GFLOP/s per core) and the bookkeeping around them. The clock bound was
// 4 GHz until an AMD EPYC of family 26 (Zen 5: two full 512-bit FMA pipes,
// 64 FLOP/cycle) boosting past 4 GHz measured 257 GFLOP/s on one core.
#include "inferlab/sysinfo/fma_peak.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

constexpr double kMaxGflopsPerCore = 64.0 * 6.0;

FmaPeakOptions short_run(int threads, FmaIsa isa = FmaIsa::kAuto) {
  FmaPeakOptions options;
  options.isa = isa;
  options.threads = threads;
  options.repetitions = 3;
  options.seconds_per_repetition = 0.03;
  options.warm_up_seconds = 0.02;
  return options;
}

TEST(FmaPeak, SingleCorePeakIsPlausibleAgainstTheScalarChain) {
  const double scalar_gflops = measure_scalar_fma_gflops(0.03);
  const FmaPeakResult peak = measure_fma_peak(short_run(1));
  ASSERT_GT(scalar_gflops, 0);
  EXPECT_GE(peak.gflops, 8 * scalar_gflops) << fma_isa_name(peak.isa);
  EXPECT_LE(peak.gflops, kMaxGflopsPerCore) << fma_isa_name(peak.isa);
}

TEST(FmaPeak, AllCoresPeakStaysBelowThePerCoreBoundTimesThreads) {
  const int threads = static_cast<int>(usable_cpus().size());
  const FmaPeakResult peak = measure_fma_peak(short_run(threads));
  EXPECT_EQ(peak.threads, threads);
  EXPECT_GT(peak.gflops, 0);
  EXPECT_LE(peak.gflops, kMaxGflopsPerCore * threads);
}

TEST(FmaPeak, RecordsEveryRepetitionAndTheBestAsPeak) {
  const FmaPeakResult peak = measure_fma_peak(short_run(2));
  ASSERT_EQ(peak.repetition_gflops.size(), 3u);
  double best = 0;
  for (double gflops : peak.repetition_gflops) best = std::max(best, gflops);
  EXPECT_DOUBLE_EQ(peak.gflops, best);
  ASSERT_EQ(peak.cpus.size(), 2u);
  const std::vector<int> cpus = usable_cpus();
  EXPECT_EQ(peak.cpus[0], cpus[0]);
  EXPECT_EQ(peak.cpus[1], cpus[1 % cpus.size()]);
  EXPECT_GT(peak.iterations_per_thread, 0);
  EXPECT_DOUBLE_EQ(peak.flops_per_repetition,
                   2.0 * peak.chains * fma_lanes(peak.isa) * peak.iterations_per_thread * 2);
}

TEST(FmaPeak, EverySupportedIsaRunsAndVectorIsasBeatTheScalarChain) {
  const double scalar_gflops = measure_scalar_fma_gflops(0.03);
  for (FmaIsa isa : {FmaIsa::kAvx512, FmaIsa::kAvx2, FmaIsa::kPortable}) {
    if (!cpu_supports(isa)) continue;
    const FmaPeakResult peak = measure_fma_peak(short_run(1, isa));
    EXPECT_EQ(peak.isa, isa);
    // Enough chains to hide latency 4 on 2 pipes, the most any x86 core needs.
    EXPECT_GE(peak.chains, 8) << fma_isa_name(isa);
    EXPECT_GT(peak.gflops, scalar_gflops) << fma_isa_name(isa);
    EXPECT_LE(peak.gflops, kMaxGflopsPerCore) << fma_isa_name(isa);
  }
}

TEST(FmaIsa, AutoResolvesToTheWidestSupported) {
  const FmaIsa resolved = resolve_fma_isa(FmaIsa::kAuto);
  EXPECT_NE(resolved, FmaIsa::kAuto);
  EXPECT_TRUE(cpu_supports(resolved));
  if (cpu_supports(FmaIsa::kAvx512)) {
    EXPECT_EQ(resolved, FmaIsa::kAvx512);
  }
  EXPECT_GE(fma_lanes(resolved), resolved == FmaIsa::kAvx512 ? 16 : 8);
}

TEST(FmaIsa, ParsesItsOwnNamesAndRejectsOthers) {
  for (FmaIsa isa : {FmaIsa::kAuto, FmaIsa::kAvx512, FmaIsa::kAvx2, FmaIsa::kPortable}) {
    EXPECT_EQ(parse_fma_isa(fma_isa_name(isa)), isa);
  }
  EXPECT_THROW(parse_fma_isa("sse9"), Error);
}

TEST(FmaPeak, RejectsZeroThreadsAndRepetitions) {
  FmaPeakOptions options = short_run(0);
  EXPECT_THROW(measure_fma_peak(options), Error);
  options = short_run(1);
  options.repetitions = 0;
  EXPECT_THROW(measure_fma_peak(options), Error);
}

}  // namespace
}  // namespace inferlab::sysinfo
