// `inferlab sysinfo` through the binary: the table, --json to a file and to
// stdout with every headline field, and usage errors (exit 2) for bad flags.
// Always --quick: the full measurement takes seconds and a GiB of memory.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

TEST(SysinfoCommand, HelpListsEveryFlag) {
  const CommandResult result = run_cli("sysinfo --help");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  for (const char* flag : {"--json", "--threads", "--isa", "--quick", "--no-save"}) {
    EXPECT_TRUE(contains(result.stdout_text, flag)) << flag << "\n" << result.stdout_text;
  }
}

TEST(SysinfoCommand, BadFlagsAreUsageErrors) {
  for (const char* arguments : {"sysinfo --bogus", "sysinfo --threads 0", "sysinfo --threads x",
                                "sysinfo --isa sse9", "sysinfo --json"}) {
    const CommandResult result = run_cli(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments << "\n" << result.stderr_text;
  }
}

TEST(SysinfoCommand, TablePrintsCpuPeaksAndBandwidthAndSaysQuick) {
  const CommandResult result = run_cli("sysinfo --quick");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string& text = result.stdout_text;
  for (const char* part : {"cpu:", "flags:", "quick mode", "FP32 FMA peak", "1 core", "GFLOP/s",
                           "scalar FMA chain", "Memory bandwidth", "triad", "copy", "GB/s"}) {
    EXPECT_TRUE(contains(text, part)) << part << "\n" << text;
  }
}

TEST(SysinfoCommand, JsonToFileHoldsTheFiguresAndTheTableStillPrints) {
  const std::string dir = make_temp_dir("cli-sysinfo");
  const CommandResult result = run_cli("sysinfo --quick --threads 1 --json " + dir + "/sys.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_TRUE(contains(result.stdout_text, "FP32 FMA peak"));
  const nlohmann::json json = nlohmann::json::parse(read_file(dir + "/sys.json"));
  EXPECT_TRUE(json.at("quick").get<bool>());
  EXPECT_GT(json.at("peak_gflops_single_core").get<double>(), 0);
  EXPECT_GT(json.at("peak_gflops_all_cores").get<double>(), 0);
  EXPECT_GT(json.at("memory_bandwidth_gbps").get<double>(), 0);
  EXPECT_EQ(json.at("fma").at("all_cores").at("threads"), 1);
  EXPECT_FALSE(json.at("cpu_model").get<std::string>().empty());
  std::filesystem::remove_all(dir);
}

TEST(SysinfoCommand, JsonToStdoutIsTheWholeOutput) {
  const CommandResult result = run_cli("sysinfo --quick --isa portable --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json json = nlohmann::json::parse(result.stdout_text);
  EXPECT_EQ(json.at("fma").at("isa"), "portable");
  EXPECT_TRUE(json.at("machine").contains("cpu_flags"));
}

}  // namespace
}  // namespace inferlab::testing
