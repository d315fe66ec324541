// Peak FP32 FMA throughput measured, never derived from the reported CPU
// frequency (untrustworthy under virtualization): each thread runs many
// independent accumulator chains acc = acc * m + a, enough to hide the FMA
// latency on every current x86 core (several counts are tried on the first
// core and the fastest is kept), in the widest vector ISA the CPU has,
// chosen at run time (the library is built without -march). FLOPs count
// 2 per FMA per lane.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace inferlab::sysinfo {

enum class FmaIsa {
  kAuto,      // the widest of the ones below this CPU supports
  kAvx512,    // 8 to 24 zmm chains of 16 floats (avx512f)
  kAvx2,      // 8 to 12 ymm chains of 8 floats (avx2 + fma)
  kPortable,  // plain C++ (what the compiler makes of 8 chains of 8 floats)
};

// "auto", "avx512", "avx2", "portable".
std::string fma_isa_name(FmaIsa isa);
// Parses a name fma_isa_name() returns; throws Error(kInvalidArgument) otherwise.
FmaIsa parse_fma_isa(const std::string& name);
bool cpu_supports(FmaIsa isa);
// kAuto resolved to the widest supported ISA; an unsupported explicit ISA
// throws Error(kUnsupported) naming the missing CPU feature.
FmaIsa resolve_fma_isa(FmaIsa isa);

// The floats in each chain of the kernel for `isa`.
int fma_lanes(FmaIsa isa);

struct FmaPeakOptions {
  FmaIsa isa = FmaIsa::kAuto;
  int threads = 1;                      // one pinned thread per CPU of `cpus`
  std::vector<int> cpus;                // empty: every usable CPU
  int repetitions = 5;                  // the best one is the peak
  double seconds_per_repetition = 0.2;  // per thread, from a calibration run
  double warm_up_seconds = 0.1;         // before calibrating (frequency ramp-up)
};

struct FmaPeakResult {
  FmaIsa isa = FmaIsa::kPortable;  // resolved
  int chains = 0;                  // the fastest count tried on the first CPU
  int threads = 0;
  std::vector<int> cpus;  // the CPU each thread was pinned to
  int64_t iterations_per_thread = 0;
  double flops_per_repetition = 0;
  std::vector<double> repetition_gflops;
  double gflops = 0;  // best repetition: GFLOP/s over the common wall interval
};

FmaPeakResult measure_fma_peak(const FmaPeakOptions& options);

// One dependent chain x = fma(x, m, a) on one thread: latency-bound, the
// yardstick the peak is compared with in the plausibility test.
double measure_scalar_fma_gflops(double seconds);

}  // namespace inferlab::sysinfo
