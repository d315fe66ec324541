// STREAM-like copy and triad on pinned threads; see memory_bandwidth.h.
#include "inferlab/sysinfo/memory_bandwidth.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "inferlab/core/error.h"
#include "inferlab/sysinfo/pinned_team.h"

namespace inferlab::sysinfo {
namespace {

constexpr int64_t kCacheLineBytes = 64;
constexpr int64_t kFallbackCacheBytes = int64_t{1} << 30;
constexpr double kTriadScalar = 3.0;

struct FreeDeleter {
  void operator()(double* data) const { std::free(data); }
};
using AlignedDoubles = std::unique_ptr<double[], FreeDeleter>;

// Untouched (no page is mapped until a thread writes it).
AlignedDoubles allocate_doubles(int64_t count) {
  void* data = std::aligned_alloc(kCacheLineBytes, static_cast<size_t>(count) * sizeof(double));
  if (data == nullptr) {
    fail(ErrorCode::kRuntime, "cannot allocate {} bytes for the bandwidth arrays",
         count * static_cast<int64_t>(sizeof(double)));
  }
  return AlignedDoubles(static_cast<double*>(data));
}

std::string read_first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// "32768K", "1M", "512" (bytes) as in sysfs cache/index*/size; 0 if unreadable.
int64_t parse_cache_size(const std::string& text) {
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || value <= 0) return 0;
  if (*end == 'K') return value << 10;
  if (*end == 'M') return value << 20;
  if (*end == 'G') return value << 30;
  return value;
}

int64_t available_memory_bytes() {
  std::ifstream file("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (file >> key) {
    if (key == "MemAvailable:" && file >> kib) return kib << 10;
    file.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

int64_t chosen_total_bytes(const MemoryBandwidthOptions& options, const LastLevelCache& llc) {
  if (options.total_bytes > 0) return options.total_bytes;
  if (options.quick) return kQuickTotalBytes;
  int64_t floor_bytes = kMinimumTotalBytes;
  const int64_t available = available_memory_bytes();
  if (available > 0) floor_bytes = std::min(floor_bytes, available / 2);
  return std::max(4 * llc.bytes, floor_bytes);
}

// Thread `index`'s slice [begin, end) of `count` elements, in whole cache lines.
std::pair<int64_t, int64_t> slice(int64_t count, int threads, int index) {
  constexpr int64_t kLine = kCacheLineBytes / sizeof(double);
  const int64_t lines = count / kLine;
  return {lines * index / threads * kLine, lines * (index + 1) / threads * kLine};
}

double gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }

// The last-level cache as the CPU itself reports it, for VMs without sysfs
// cache entries: Intel's deterministic cache leaf 4 (the highest level), else
// AMD's extended leaf 0x80000006 (L3 size in 512 KiB units, EDX[31:18]).
// What the hypervisor passes through is the host socket's cache; 0 if none.
LastLevelCache cpuid_last_level_cache() {
  LastLevelCache llc;
#if defined(__x86_64__)
  unsigned eax = 0;
  unsigned ebx = 0;
  unsigned ecx = 0;
  unsigned edx = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  for (unsigned subleaf = 0; max_leaf >= 4 && subleaf < 16; ++subleaf) {
    __cpuid_count(4, subleaf, eax, ebx, ecx, edx);
    const unsigned type = eax & 0x1f;
    if (type == 0) break;
    if (type == 2) continue;  // instruction cache
    const int level = static_cast<int>((eax >> 5) & 0x7);
    const int64_t bytes = int64_t{((ebx >> 22) & 0x3ff) + 1} * (((ebx >> 12) & 0x3ff) + 1) *
                          ((ebx & 0xfff) + 1) * (int64_t{ecx} + 1);
    if (level >= llc.level) llc = LastLevelCache{bytes, level, 1, "cpuid"};
  }
  if (llc.bytes == 0 && __get_cpuid(0x80000006, &eax, &ebx, &ecx, &edx) != 0) {
    const int64_t l3_bytes = int64_t{edx >> 18} * (int64_t{512} << 10);
    if (l3_bytes > 0) llc = LastLevelCache{l3_bytes, 3, 1, "cpuid"};
  }
#endif
  return llc;
}

}  // namespace

LastLevelCache last_level_cache(const std::vector<int>& cpus) {
  LastLevelCache llc;
  std::map<std::string, int64_t> caches;  // shared_cpu_list -> bytes, at llc.level
  for (int cpu : cpus) {
    const std::filesystem::path dir =
        "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
      if (entry.path().filename().string().rfind("index", 0) != 0) continue;
      if (read_first_line(entry.path() / "type") == "Instruction") continue;
      const int level = std::atoi(read_first_line(entry.path() / "level").c_str());
      const int64_t bytes = parse_cache_size(read_first_line(entry.path() / "size"));
      if (bytes <= 0 || level < llc.level) continue;
      if (level > llc.level) caches.clear();
      llc.level = level;
      caches[read_first_line(entry.path() / "shared_cpu_list")] = bytes;
    }
  }
  for (const auto& [shared_cpus, bytes] : caches) llc.bytes += bytes;
  llc.instances = static_cast<int>(caches.size());
  llc.source = "sysfs";
  if (llc.bytes == 0) llc = cpuid_last_level_cache();
  if (llc.bytes == 0) llc = LastLevelCache{kFallbackCacheBytes, 0, 0, "fallback"};
  return llc;
}

MemoryBandwidthResult measure_memory_bandwidth(const MemoryBandwidthOptions& options) {
  const std::vector<int> cpus = options.cpus.empty() ? usable_cpus() : options.cpus;
  if (options.repetitions < 1 || options.threads < 0 || options.total_bytes < 0) {
    fail(ErrorCode::kInvalidArgument, "memory bandwidth needs repetitions >= 1 and threads >= 0");
  }
  MemoryBandwidthResult result;
  result.threads = options.threads > 0 ? options.threads : static_cast<int>(cpus.size());
  result.repetitions = options.repetitions;
  result.quick = options.quick;
  result.llc = last_level_cache(cpus);
  constexpr int64_t kLine = kCacheLineBytes / sizeof(double);
  // Rounded up, so the arrays reach the size asked for (4x the LLC).
  const int64_t lines = std::max<int64_t>(
      result.threads,
      (chosen_total_bytes(options, result.llc) + 3 * kCacheLineBytes - 1) / (3 * kCacheLineBytes));
  const int64_t count = lines * kLine;
  result.array_bytes = count * static_cast<int64_t>(sizeof(double));
  result.total_bytes = 3 * result.array_bytes;
  result.exceeds_4x_llc = result.total_bytes >= 4 * result.llc.bytes;

  AlignedDoubles a = allocate_doubles(count);
  AlignedDoubles b = allocate_doubles(count);
  AlignedDoubles c = allocate_doubles(count);
  const int threads = result.threads;
  run_pinned_team(cpus, threads, [&](int index) {  // first touch, by the thread that runs it
    const auto [begin, end] = slice(count, threads, index);
    std::fill(a.get() + begin, a.get() + end, 1.0);
    std::fill(b.get() + begin, b.get() + end, 2.0);
    std::fill(c.get() + begin, c.get() + end, 0.0);
  });
  auto copy = [&](int index) {
    const auto [begin, end] = slice(count, threads, index);
    double* __restrict out = c.get();
    const double* __restrict in = a.get();
    for (int64_t i = begin; i < end; ++i) out[i] = in[i];
  };
  auto triad = [&](int index) {
    const auto [begin, end] = slice(count, threads, index);
    double* __restrict out = a.get();
    const double* __restrict left = b.get();
    const double* __restrict right = c.get();
    for (int64_t i = begin; i < end; ++i) out[i] = left[i] + kTriadScalar * right[i];
  };
  const double element_bytes = static_cast<double>(count) * sizeof(double);
  for (int repetition = 0; repetition < options.repetitions; ++repetition) {
    result.copy_repetition_gbps.push_back(
        gbps(2 * element_bytes, run_pinned_team(cpus, threads, copy)));
    result.triad_repetition_gbps.push_back(
        gbps(3 * element_bytes, run_pinned_team(cpus, threads, triad)));
  }
  result.copy_gbps =
      *std::max_element(result.copy_repetition_gbps.begin(), result.copy_repetition_gbps.end());
  result.triad_gbps =
      *std::max_element(result.triad_repetition_gbps.begin(), result.triad_repetition_gbps.end());
  return result;
}

}  // namespace inferlab::sysinfo
