// Choosing the profile's roofline limits; see machine_peak.h.
#include "inferlab/profile/machine_peak.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "inferlab/bench/environment_record.h"
#include "inferlab/core/error.h"
#include "inferlab/sysinfo/sysinfo.h"
#include "inferlab/sysinfo/sysinfo_record.h"

namespace inferlab::profile {

MachinePeak peak_from_record(const nlohmann::json& record, int threads) {
  const double single = record.at("peak_gflops_single_core").get<double>();
  const double all = record.at("peak_gflops_all_cores").get<double>();
  const int all_threads = record.at("fma").at("all_cores").at("threads").get<int>();
  const int usable = static_cast<int>(record.value("usable_cores", int64_t{all_threads}));
  // More threads than cores add no FMA units.
  const int cores = std::max(1, std::min(threads > 0 ? threads : usable, std::max(usable, 1)));
  MachinePeak peak;
  if (cores == all_threads) {
    peak.gflops = all;
  } else {
    peak.gflops = single * cores;
  }
  peak.gbps = record.at("memory_bandwidth_gbps").get<double>();
  return peak;
}

namespace {

std::string figures(const MachinePeak& peak, int threads) {
  return fmt::format("{:.1f} GFLOP/s on {} thread{}, {:.1f} GB/s", peak.gflops, threads,
                     threads == 1 ? "" : "s", peak.gbps);
}

}  // namespace

MachinePeak resolve_machine_peak(const PeakRequest& request, const ProgressCallback& status) {
  const nlohmann::json machine = bench::machine_record();
  const int threads = request.threads > 0
                          ? request.threads
                          : static_cast<int>(machine.value("usable_cores", int64_t{1}));
  if (!request.sysinfo_path.empty()) {
    MachinePeak peak = peak_from_record(sysinfo::load_record(request.sysinfo_path), threads);
    peak.source = fmt::format("{} (from {})", figures(peak, threads), request.sysinfo_path);
    return peak;
  }
  std::string reason = "no record yet";
  if (std::filesystem::exists(request.cache_path)) {
    try {
      const nlohmann::json record = sysinfo::load_record(request.cache_path);
      const std::optional<std::string> mismatch = sysinfo::record_mismatch(record, machine);
      if (!mismatch) {
        MachinePeak peak = peak_from_record(record, threads);
        peak.source = fmt::format("{} (inferlab sysinfo, cached in {})", figures(peak, threads),
                                  request.cache_path);
        return peak;
      }
      reason = "the cached record does not fit: " + *mismatch;
    } catch (const Error& error) {
      reason = fmt::format("the cached record is unusable: {}", error.what());
    }
  }
  if (status) status(fmt::format("measuring this machine's peak ({})...", reason));
  sysinfo::SysinfoOptions measure;
  measure.quick = request.quick_measurement;
  const nlohmann::json record = sysinfo::to_json(sysinfo::measure_system(measure));
  sysinfo::save_record(record, request.cache_path);
  MachinePeak peak = peak_from_record(record, threads);
  peak.source = fmt::format(
      "{} (measured now, saved to {}; rerun `inferlab sysinfo` on a quiet "
      "machine to refresh it)",
      figures(peak, threads), request.cache_path);
  return peak;
}

}  // namespace inferlab::profile
