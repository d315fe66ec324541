// The profile's roofline limits: the right figure of a sysinfo record for
// the threads used, a named file over the cache, the cached record when it
// fits this machine, and a fresh measurement (saved) when it does not.
#include "inferlab/profile/machine_peak.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/bench/environment_record.h"
#include "inferlab/core/error.h"
#include "inferlab/sysinfo/sysinfo_record.h"
#include "test_util.h"

namespace inferlab::profile {
namespace {

nlohmann::json record(int usable_cores, int all_threads) {
  const nlohmann::json machine = bench::machine_record();
  return {{"quick", false},
          {"cpu_model", machine.value("cpu_model", "")},
          {"usable_cores", usable_cores},
          {"peak_gflops_single_core", 100.0},
          {"peak_gflops_all_cores", 190.0},
          {"memory_bandwidth_gbps", 30.0},
          {"fma", {{"all_cores", {{"threads", all_threads}}}}}};
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MachinePeak, ThreadsPickTheSingleOrAllCoresFigure) {
  EXPECT_DOUBLE_EQ(peak_from_record(record(2, 2), 1).gflops, 100.0);
  EXPECT_DOUBLE_EQ(peak_from_record(record(2, 2), 2).gflops, 190.0);
  EXPECT_DOUBLE_EQ(peak_from_record(record(2, 2), 0).gflops, 190.0) << "0: every core";
  EXPECT_DOUBLE_EQ(peak_from_record(record(2, 2), 8).gflops, 190.0) << "capped at the cores";
  EXPECT_DOUBLE_EQ(peak_from_record(record(4, 4), 2).gflops, 200.0) << "between: scaled";
  EXPECT_DOUBLE_EQ(peak_from_record(record(2, 2), 1).gbps, 30.0);
}

TEST(MachinePeak, ANamedFileIsUsedAndItsSourceSaysSo) {
  const std::string dir = testing::make_temp_dir("machine-peak");
  sysinfo::save_record(record(2, 2), dir + "/mine.json");
  const MachinePeak peak =
      resolve_machine_peak({1, dir + "/mine.json", dir + "/cache/sysinfo.json"}, {});
  EXPECT_DOUBLE_EQ(peak.gflops, 100.0);
  EXPECT_TRUE(contains(peak.source, dir + "/mine.json")) << peak.source;
  EXPECT_FALSE(std::filesystem::exists(dir + "/cache/sysinfo.json"));
  EXPECT_THROW(resolve_machine_peak({1, dir + "/absent.json", dir + "/cache.json"}, {}), Error);
  std::filesystem::remove_all(dir);
}

TEST(MachinePeak, TheCachedRecordIsUsedWhenItFitsThisMachine) {
  const std::string dir = testing::make_temp_dir("machine-peak");
  const int cores = static_cast<int>(bench::machine_record().value("usable_cores", int64_t{1}));
  sysinfo::save_record(record(cores, cores), dir + "/sysinfo.json");
  std::string status;
  const MachinePeak peak = resolve_machine_peak({1, "", dir + "/sysinfo.json"},
                                                [&](const std::string& text) { status = text; });
  EXPECT_DOUBLE_EQ(peak.gflops, 100.0);
  EXPECT_TRUE(contains(peak.source, "cached")) << peak.source;
  EXPECT_TRUE(status.empty()) << "nothing measured: " << status;
  std::filesystem::remove_all(dir);
}

TEST(MachinePeak, AMismatchedCacheIsMeasuredAgainAndReplaced) {
  const std::string dir = testing::make_temp_dir("machine-peak");
  nlohmann::json foreign = record(2, 2);
  foreign["cpu_model"] = "Some Other CPU";
  sysinfo::save_record(foreign, dir + "/sysinfo.json");
  PeakRequest request{1, "", dir + "/sysinfo.json"};
  request.quick_measurement = true;
  std::string status;
  const MachinePeak peak =
      resolve_machine_peak(request, [&](const std::string& text) { status = text; });
  EXPECT_TRUE(contains(status, "Some Other CPU")) << status;
  EXPECT_TRUE(contains(peak.source, "measured now")) << peak.source;
  EXPECT_GT(peak.gflops, 0);
  EXPECT_GT(peak.gbps, 0);
  const nlohmann::json saved = sysinfo::load_record(dir + "/sysinfo.json");
  EXPECT_NE(saved.value("cpu_model", ""), "Some Other CPU");
  EXPECT_DOUBLE_EQ(saved.at("peak_gflops_single_core").get<double>(), peak.gflops);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace inferlab::profile
