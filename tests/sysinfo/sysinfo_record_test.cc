// The cached sysinfo record: written whole and read back, refused with the
// file and field named when it is not a record, and reused only on the
// machine it was measured on and only when it was a full measurement.
#include "inferlab/sysinfo/sysinfo_record.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/core/error.h"
#include "test_util.h"

namespace inferlab::sysinfo {
namespace {

nlohmann::json sample_record() {
  return {{"quick", false},
          {"cpu_model", "Test CPU"},
          {"usable_cores", 2},
          {"peak_gflops_single_core", 100.0},
          {"peak_gflops_all_cores", 190.0},
          {"memory_bandwidth_gbps", 30.0},
          {"fma", {{"all_cores", {{"threads", 2}}}}}};
}

std::string expect_error(const std::string& path) {
  try {
    load_record(path);
  } catch (const Error& error) {
    return error.what();
  }
  ADD_FAILURE() << "no error for " << path;
  return "";
}

TEST(SysinfoRecord, SavedRecordLoadsBackWholeAndLeavesNoTemporaryFile) {
  const std::string dir = testing::make_temp_dir("sysinfo-record");
  const std::string path = dir + "/nested/sysinfo.json";
  save_record(sample_record(), path);
  EXPECT_EQ(load_record(path), sample_record());
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/nested")) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir);
}

TEST(SysinfoRecord, NotARecordIsRefusedNamingTheFileAndField) {
  const std::string dir = testing::make_temp_dir("sysinfo-record");
  testing::write_file(dir + "/garbage.json", "not json");
  EXPECT_NE(expect_error(dir + "/garbage.json").find("garbage.json"), std::string::npos);
  nlohmann::json record = sample_record();
  record.erase("memory_bandwidth_gbps");
  testing::write_file(dir + "/partial.json", record.dump());
  const std::string message = expect_error(dir + "/partial.json");
  EXPECT_NE(message.find("memory_bandwidth_gbps"), std::string::npos) << message;
  record = sample_record();
  record["fma"] = nlohmann::json::object();
  testing::write_file(dir + "/no_threads.json", record.dump());
  EXPECT_NE(expect_error(dir + "/no_threads.json").find("fma.all_cores.threads"),
            std::string::npos);
  EXPECT_NE(expect_error(dir + "/missing.json").find("missing.json"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(SysinfoRecord, FitsOnlyTheSameCpuAndCoresAndNeverAQuickRun) {
  const nlohmann::json machine = {{"cpu_model", "Test CPU"}, {"usable_cores", 2}};
  EXPECT_FALSE(record_mismatch(sample_record(), machine).has_value());
  nlohmann::json quick = sample_record();
  quick["quick"] = true;
  EXPECT_NE(record_mismatch(quick, machine).value_or("").find("--quick"), std::string::npos);
  const nlohmann::json other_cpu = {{"cpu_model", "Other CPU"}, {"usable_cores", 2}};
  EXPECT_NE(record_mismatch(sample_record(), other_cpu).value_or("").find("Other CPU"),
            std::string::npos);
  const nlohmann::json more_cores = {{"cpu_model", "Test CPU"}, {"usable_cores", 4}};
  EXPECT_TRUE(record_mismatch(sample_record(), more_cores).has_value());
}

TEST(SysinfoRecord, DefaultPathFollowsInferlabCache) {
  const char* saved = std::getenv("INFERLAB_CACHE");
  const std::string previous = saved != nullptr ? saved : "";
  setenv("INFERLAB_CACHE", "/tmp/inferlab-cache-test", 1);
  EXPECT_EQ(default_record_path(), "/tmp/inferlab-cache-test/sysinfo.json");
  if (saved != nullptr) {
    setenv("INFERLAB_CACHE", previous.c_str(), 1);
  } else {
    unsetenv("INFERLAB_CACHE");
  }
}

}  // namespace
}  // namespace inferlab::sysinfo
