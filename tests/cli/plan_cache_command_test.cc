// --plan-cache from the command line: `run` saves the plan, then loads it,
// and says so; a damaged plan file is a warning naming the reason and is
// rebuilt; `bench` reports the native engine's load time with and without
// the cache; a backend without a plan cache refuses the option by name.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

std::string mobilenet() { return cache_dir() + "/models/mobilenet_v2_op17.onnx"; }

TEST(PlanCacheCommand, RunSavesThenLoadsAndWarnsAboutADamagedPlan) {
  const std::string dir = make_temp_dir("inferlab-plan-cache-cli");
  const CommandResult first = run_cli("run " + mobilenet() + " --plan-cache " + dir);
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  EXPECT_NE(first.stdout_text.find("plan cache: saved"), std::string::npos) << first.stdout_text;
  const CommandResult second = run_cli("run " + mobilenet() + " --plan-cache " + dir);
  EXPECT_NE(second.stdout_text.find("plan cache: loaded"), std::string::npos) << second.stdout_text;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".plan")
      std::filesystem::resize_file(entry.path(), std::filesystem::file_size(entry.path()) - 1);
  }
  const CommandResult third = run_cli("run " + mobilenet() + " --plan-cache " + dir);
  ASSERT_EQ(third.exit_code, 0) << third.stderr_text;
  EXPECT_NE(third.stdout_text.find("plan cache: rebuilt"), std::string::npos);
  EXPECT_NE(third.stderr_text.find("warning: plan cache: truncated"), std::string::npos)
      << third.stderr_text;
  std::filesystem::remove_all(dir);
}

TEST(PlanCacheCommand, BenchReportsLoadTimeWithAndWithoutTheCache) {
  const std::string dir = make_temp_dir("inferlab-plan-cache-bench");
  const CommandResult result =
      run_cli("bench " + mobilenet() + " --backends native --plan-cache " + dir +
              "/plans --rounds 1 --min-iterations 1 --min-round-ms 1 --warmup-runs 1"
              " --settle-ms 1 --json " +
              dir + "/r.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("plan cache: load"), std::string::npos) << result.stdout_text;
  const nlohmann::json report = nlohmann::json::parse(read_file(dir + "/r.json"));
  const nlohmann::json& cache = report["points"][0]["backends"][0]["plan_cache"];
  EXPECT_EQ(cache["first_open"], "saved");
  EXPECT_GT(cache["load_ms_uncached"].get<double>(), 0.0);
  EXPECT_GT(cache["load_ms_cached"].get<double>(), 0.0);
  std::filesystem::remove_all(dir);
}

TEST(PlanCacheCommand, ABackendWithoutAPlanCacheRefusesTheOption) {
  const CommandResult result =
      run_cli("run " + mobilenet() + " --backend onnxruntime --plan-cache /tmp/unused");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("onnxruntime: has no plan cache"), std::string::npos)
      << result.stderr_text;
}

}  // namespace
}  // namespace inferlab::testing
