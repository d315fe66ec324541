// FMA peak kernels and their timing; see fma_peak.h. Each x86 kernel is
// compiled for its own ISA with a target attribute and only called after
// __builtin_cpu_supports said yes, so the library still runs on any x86-64.
#include "inferlab/sysinfo/fma_peak.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

// acc converges to kAddend / (1 - kMultiplier) = 1: no overflow, no denormals.
constexpr float kMultiplier = 0.999999f;
constexpr float kAddend = 1e-6f;
constexpr int kPortableChains = 8;
constexpr int kPortableLanes = 8;
constexpr double kCalibrationSeconds = 0.02;
constexpr double kSelectionSeconds = 0.03;  // per chain count tried
constexpr int64_t kMaxCalibrationIterations = int64_t{1} << 40;

using Kernel = float (*)(int64_t iterations);

// A value the compiler cannot see through, so it cannot fold a chain (1 is
// a fixed point of x * kMultiplier + kAddend in float).
float opaque(float value) {
  volatile float copy = value;
  return copy;
}

#if defined(__x86_64__)
template <int kChains>
__attribute__((target("avx512f"))) float fma_chains_avx512(int64_t iterations) {
  const __m512 multiplier = _mm512_set1_ps(opaque(kMultiplier));
  const __m512 addend = _mm512_set1_ps(opaque(kAddend));
  __m512 acc[kChains];
  for (int chain = 0; chain < kChains; ++chain) {
    acc[chain] = _mm512_set1_ps(1.0f + 0.001f * static_cast<float>(chain));
  }
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 32
    for (int chain = 0; chain < kChains; ++chain) {
      acc[chain] = _mm512_fmadd_ps(acc[chain], multiplier, addend);
    }
  }
  __m512 sum = acc[0];
  for (int chain = 1; chain < kChains; ++chain) sum = _mm512_add_ps(sum, acc[chain]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}

template <int kChains>
__attribute__((target("avx2,fma"))) float fma_chains_avx2(int64_t iterations) {
  const __m256 multiplier = _mm256_set1_ps(opaque(kMultiplier));
  const __m256 addend = _mm256_set1_ps(opaque(kAddend));
  __m256 acc[kChains];
  for (int chain = 0; chain < kChains; ++chain) {
    acc[chain] = _mm256_set1_ps(1.0f + 0.001f * static_cast<float>(chain));
  }
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int chain = 0; chain < kChains; ++chain) {
      acc[chain] = _mm256_fmadd_ps(acc[chain], multiplier, addend);
    }
  }
  __m256 sum = acc[0];
  for (int chain = 1; chain < kChains; ++chain) sum = _mm256_add_ps(sum, acc[chain]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float lane : lanes) total += lane;
  return total;
}

__attribute__((target("fma"))) float scalar_fma_chain_x86(int64_t iterations) {
  const float multiplier = opaque(kMultiplier);
  const float addend = opaque(kAddend);
  float x = opaque(1.0f);
  for (int64_t i = 0; i < iterations; ++i) x = std::fma(x, multiplier, addend);
  return x;
}
#endif

// Whatever the baseline ISA gives (SSE2 multiply + add on x86-64).
float fma_chains_portable(int64_t iterations) {
  const float multiplier = opaque(kMultiplier);
  const float addend = opaque(kAddend);
  float acc[kPortableChains][kPortableLanes];
  for (int chain = 0; chain < kPortableChains; ++chain) {
    for (int lane = 0; lane < kPortableLanes; ++lane) {
      acc[chain][lane] = 1.0f + 0.001f * static_cast<float>(chain * kPortableLanes + lane);
    }
  }
  for (int64_t i = 0; i < iterations; ++i) {
    for (int chain = 0; chain < kPortableChains; ++chain) {
      for (int lane = 0; lane < kPortableLanes; ++lane) {
        acc[chain][lane] = acc[chain][lane] * multiplier + addend;
      }
    }
  }
  float total = 0;
  for (const auto& chain : acc) {
    for (float value : chain) total += value;
  }
  return total;
}

float scalar_fma_chain_portable(int64_t iterations) {
  const float multiplier = opaque(kMultiplier);
  const float addend = opaque(kAddend);
  float x = opaque(1.0f);
  for (int64_t i = 0; i < iterations; ++i) x = std::fma(x, multiplier, addend);
  return x;
}

// One kernel per chain count tried. Cores differ in FMA latency, pipes and
// how they schedule long unrolled bodies (a Zen 5 core ran 8 zmm chains
// faster than 16), so the peak is the best of several counts, each at least
// latency x pipes = 8 on every current x86 core.
struct ChainVariant {
  int chains;
  Kernel kernel;
};

std::vector<ChainVariant> chain_variants(FmaIsa isa) {
#if defined(__x86_64__)
  if (isa == FmaIsa::kAvx512) {
    return {{8, fma_chains_avx512<8>},
            {10, fma_chains_avx512<10>},
            {12, fma_chains_avx512<12>},
            {16, fma_chains_avx512<16>},
            {24, fma_chains_avx512<24>}};
  }
  // 16 ymm registers, 2 of which hold the operands.
  if (isa == FmaIsa::kAvx2) {
    return {{8, fma_chains_avx2<8>}, {10, fma_chains_avx2<10>}, {12, fma_chains_avx2<12>}};
  }
#endif
  return {{kPortableChains, fma_chains_portable}};
}

Kernel scalar_kernel() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("fma")) return scalar_fma_chain_x86;
#endif
  return scalar_fma_chain_portable;
}

// Seconds one call of `kernel` takes; the result goes to a volatile so the
// call is not dropped.
double time_kernel(Kernel kernel, int64_t iterations) {
  static_assert(std::chrono::steady_clock::is_steady);
  const auto start = std::chrono::steady_clock::now();
  volatile float sink = kernel(iterations);
  (void)sink;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Iterations that take about `seconds` on this thread, from a run long
// enough (>= kCalibrationSeconds) for the clock and the frequency to settle.
int64_t calibrate_iterations(Kernel kernel, double seconds) {
  int64_t iterations = 1024;
  for (;;) {
    const double elapsed = time_kernel(kernel, iterations);
    if (elapsed >= kCalibrationSeconds) {
      return std::max<int64_t>(1,
                               std::llround(static_cast<double>(iterations) * seconds / elapsed));
    }
    if (iterations > kMaxCalibrationIterations) {
      fail(ErrorCode::kRuntime, "the FMA kernel ran {} iterations in {} s: it cannot be timed",
           iterations, elapsed);
    }
    iterations *= 4;
  }
}

// GFLOP/s of `iterations` of a kernel with `chains` x `lanes` FMAs each.
double gflops_of(int64_t iterations, int chains, int lanes, double seconds) {
  return 2.0 * chains * lanes * static_cast<double>(iterations) / seconds / 1e9;
}

// The chain count that runs fastest on this core, each timed for about
// `seconds` after its own calibration.
ChainVariant fastest_variant(FmaIsa isa, double seconds) {
  const std::vector<ChainVariant> variants = chain_variants(isa);
  ChainVariant best = variants.front();
  double best_gflops = 0;
  for (const ChainVariant& variant : variants) {
    const int64_t iterations = calibrate_iterations(variant.kernel, seconds);
    const double gflops = gflops_of(iterations, variant.chains, fma_lanes(isa),
                                    time_kernel(variant.kernel, iterations));
    if (gflops > best_gflops) {
      best_gflops = gflops;
      best = variant;
    }
  }
  return best;
}

}  // namespace

std::string fma_isa_name(FmaIsa isa) {
  switch (isa) {
    case FmaIsa::kAuto:
      return "auto";
    case FmaIsa::kAvx512:
      return "avx512";
    case FmaIsa::kAvx2:
      return "avx2";
    case FmaIsa::kPortable:
      return "portable";
  }
  return "unknown";
}

FmaIsa parse_fma_isa(const std::string& name) {
  for (FmaIsa isa : {FmaIsa::kAuto, FmaIsa::kAvx512, FmaIsa::kAvx2, FmaIsa::kPortable}) {
    if (fma_isa_name(isa) == name) return isa;
  }
  fail(ErrorCode::kInvalidArgument, "unknown FMA ISA '{}' (auto, avx512, avx2, portable)", name);
}

bool cpu_supports(FmaIsa isa) {
#if defined(__x86_64__)
  if (isa == FmaIsa::kAvx512) return __builtin_cpu_supports("avx512f");
  if (isa == FmaIsa::kAvx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  if (isa == FmaIsa::kAvx512 || isa == FmaIsa::kAvx2) return false;
#endif
  return true;
}

FmaIsa resolve_fma_isa(FmaIsa isa) {
  if (isa == FmaIsa::kAuto) {
    for (FmaIsa widest : {FmaIsa::kAvx512, FmaIsa::kAvx2}) {
      if (cpu_supports(widest)) return widest;
    }
    return FmaIsa::kPortable;
  }
  if (!cpu_supports(isa)) {
    fail(ErrorCode::kUnsupported, "FMA ISA {}: this CPU (or build) lacks {}", fma_isa_name(isa),
         isa == FmaIsa::kAvx512 ? "avx512f" : "avx2 and fma");
  }
  return isa;
}

int fma_lanes(FmaIsa isa) {
  switch (resolve_fma_isa(isa)) {
    case FmaIsa::kAvx512:
      return 16;
    case FmaIsa::kAvx2:
      return 8;
    default:
      return kPortableLanes;
  }
}

FmaPeakResult measure_fma_peak(const FmaPeakOptions& options) {
  if (options.threads < 1 || options.repetitions < 1 || options.seconds_per_repetition <= 0) {
    fail(ErrorCode::kInvalidArgument,
         "FMA peak needs threads >= 1, repetitions >= 1 and a positive duration");
  }
  FmaPeakResult result;
  result.isa = resolve_fma_isa(options.isa);
  result.threads = options.threads;
  const std::vector<int> cpus = options.cpus.empty() ? usable_cpus() : options.cpus;
  for (int index = 0; index < options.threads; ++index) {
    result.cpus.push_back(cpus[index % cpus.size()]);
  }
  // Warm up, pick the fastest chain count and calibrate on the first CPU,
  // then warm every core up together.
  Kernel kernel = nullptr;
  run_pinned_team(cpus, 1, [&](int) {
    const ChainVariant first = chain_variants(result.isa).front();
    time_kernel(first.kernel, calibrate_iterations(first.kernel, options.warm_up_seconds));
    const ChainVariant best = fastest_variant(result.isa, kSelectionSeconds);
    kernel = best.kernel;
    result.chains = best.chains;
    result.iterations_per_thread = calibrate_iterations(kernel, options.seconds_per_repetition);
  });
  auto run_all = [&](int) { time_kernel(kernel, result.iterations_per_thread); };
  if (options.threads > 1) run_pinned_team(cpus, options.threads, run_all);
  result.flops_per_repetition = 2.0 * result.chains * fma_lanes(result.isa) *
                                static_cast<double>(result.iterations_per_thread) * options.threads;
  for (int repetition = 0; repetition < options.repetitions; ++repetition) {
    const double seconds = run_pinned_team(cpus, options.threads, run_all);
    const double gflops = result.flops_per_repetition / seconds / 1e9;
    result.repetition_gflops.push_back(gflops);
    result.gflops = std::max(result.gflops, gflops);
  }
  return result;
}

double measure_scalar_fma_gflops(double seconds) {
  const Kernel kernel = scalar_kernel();
  const int64_t iterations = calibrate_iterations(kernel, seconds);
  return gflops_of(iterations, 1, 1, time_kernel(kernel, iterations));
}

}  // namespace inferlab::sysinfo
