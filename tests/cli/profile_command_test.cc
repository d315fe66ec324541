// `inferlab profile`, end to end through the binary: mobilenet_v2 on native
// and onnxruntime prints its tables, writes the JSON document and a valid
// trace-event file; the roofline comes from a sysinfo record; --help lists
// the flags; bad flags are usage errors. Every run names its peak (--sysinfo)
// or leaves it out (--no-peak): measuring the machine here, beside other
// tests, would cache a wrong peak.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

std::string mobilenet() { return cache_dir() + "/models/mobilenet_v2_op17.onnx"; }

// A sysinfo record as `inferlab sysinfo --json` writes it, with round figures.
std::string write_sysinfo(const std::string& dir) {
  const nlohmann::json record = {{"quick", false},
                                 {"cpu_model", "Test CPU"},
                                 {"usable_cores", 2},
                                 {"peak_gflops_single_core", 100.0},
                                 {"peak_gflops_all_cores", 200.0},
                                 {"memory_bandwidth_gbps", 20.0},
                                 {"fma", {{"all_cores", {{"threads", 2}}}}}};
  write_file(dir + "/sysinfo.json", record.dump());
  return dir + "/sysinfo.json";
}

TEST(ProfileCommand, TwoBackendsPrintTablesJsonAndTrace) {
  if (!std::filesystem::exists(mobilenet())) GTEST_SKIP() << "missing " << mobilenet();
  const std::string dir = make_temp_dir("cli-profile");
  const std::string sysinfo = write_sysinfo(dir);
  const CommandResult result =
      run_cli("profile " + mobilenet() + " --backends native,onnxruntime --runs 2 --warmup 1 " +
              "--top 5 --json " + dir + "/profile.json --trace " + dir + "/trace.json" +
              " --sysinfo " + sysinfo);
  if (result.exit_code != 0 && contains(result.stderr_text, "onnxruntime"))
    GTEST_SKIP() << result.stderr_text;
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const std::string& text = result.stdout_text;
  EXPECT_TRUE(contains(text, "top 5 nodes")) << text;
  EXPECT_TRUE(contains(text, "by operator type")) << text;
  EXPECT_TRUE(contains(text, "(outside kernels)")) << text;
  EXPECT_TRUE(contains(text, "profiling overhead")) << text;
  EXPECT_TRUE(contains(text, "native vs onnxruntime, per operator type")) << text;
  EXPECT_TRUE(contains(text, "native vs onnxruntime, per node")) << text;
  EXPECT_TRUE(contains(text, "machine peak: 100.0 GFLOP/s on 1 thread, 20.0 GB/s")) << text;
  EXPECT_TRUE(contains(text, "of peak")) << text;

  const nlohmann::json json = nlohmann::json::parse(read_file(dir + "/profile.json"));
  EXPECT_EQ(json.at("schema"), "inferlab.profile/1");
  EXPECT_DOUBLE_EQ(json.at("settle_ms").get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(json.at("peak").at("gflops").get<double>(), 100.0);
  EXPECT_TRUE(contains(json.at("peak").at("source").get<std::string>(), sysinfo));
  ASSERT_EQ(json.at("profiles").size(), 2u);
  for (const nlohmann::json& profile : json.at("profiles")) {
    EXPECT_EQ(profile.at("runs"), 2);
    EXPECT_TRUE(profile.at("wall_ms").at("p50").is_number());
    EXPECT_TRUE(profile.at("kernel_ms").at("p50").is_number());
    EXPECT_TRUE(profile.at("outside_kernels").at("mean_ms").is_number());
    EXPECT_TRUE(profile.at("baseline").at("overhead_interval").is_array());
    EXPECT_EQ(profile.at("top").size(), 5u);
    ASSERT_FALSE(profile.at("nodes").empty());
    const nlohmann::json& node = profile.at("nodes")[0];
    for (const char* key : {"name", "op_type", "calls", "total_ms", "mean_ms", "share", "flops",
                            "bytes", "gflops_per_s", "gb_per_s", "covers"})
      EXPECT_TRUE(node.contains(key)) << key;
    EXPECT_FALSE(profile.at("op_types").empty());
    EXPECT_GT(profile.at("peak_share").get<double>(), 0);
    bool some_node_bound = false;
    for (const nlohmann::json& each : profile.at("nodes"))
      some_node_bound = some_node_bound || each.value("bound", "") == "compute" ||
                        each.value("bound", "") == "memory";
    EXPECT_TRUE(some_node_bound) << "no node has a roofline bound";
  }
  EXPECT_FALSE(json.at("cross_engine").at("nodes").empty());
  EXPECT_FALSE(json.at("cross_engine").at("op_types").empty());

  const nlohmann::json trace = nlohmann::json::parse(read_file(dir + "/trace.json"));
  ASSERT_TRUE(trace.at("traceEvents").is_array());
  size_t complete = 0;
  for (const nlohmann::json& event : trace.at("traceEvents")) {
    ASSERT_TRUE(event.contains("ph") && event.contains("pid") && event.contains("tid"));
    if (event.at("ph") == "X") {
      ++complete;
      ASSERT_TRUE(event.at("ts").is_number() && event.at("dur").is_number());
    }
  }
  EXPECT_GT(complete, 100u);
  std::filesystem::remove_all(dir);
}

TEST(ProfileCommand, JsonToStdoutAlone) {
  if (!std::filesystem::exists(mobilenet())) GTEST_SKIP() << "missing " << mobilenet();
  const CommandResult result =
      run_cli("profile " + mobilenet() + " --runs 1 --warmup 0 --no-baseline --no-peak --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json json = nlohmann::json::parse(result.stdout_text);
  EXPECT_TRUE(json.at("peak").is_null());
  EXPECT_TRUE(json.at("profiles")[0].at("baseline").is_null());
  EXPECT_TRUE(json.at("cross_engine").is_null());
}

TEST(ProfileCommand, HelpListsTheFlags) {
  const CommandResult result = run_cli("profile --help");
  ASSERT_EQ(result.exit_code, 0);
  for (const char* flag :
       {"--backends", "--threads", "--shape", "--runs", "--warmup", "--top", "--json", "--trace",
        "--no-baseline", "--sysinfo", "--no-peak", "--settle-ms"})
    EXPECT_TRUE(contains(result.stdout_text, flag)) << flag;
}

TEST(ProfileCommand, BadFlagsAreUsageErrors) {
  const std::string model = mobilenet();
  for (const std::string& flags :
       {std::string("--runs 0"), std::string("--backends native,onnxruntime,libtorch"),
        std::string("--backends native,native"), std::string("--shape input"),
        std::string("--top -1"), std::string("--bogus"), std::string("--threads x"),
        std::string("--no-peak --sysinfo x.json"), std::string("--settle-ms -5")}) {
    const CommandResult result = run_cli("profile " + model + " " + flags);
    EXPECT_EQ(result.exit_code, 2) << flags << ": " << result.stderr_text;
  }
  EXPECT_EQ(run_cli("profile").exit_code, 2);
}

TEST(ProfileCommand, ABadSysinfoFileIsAnErrorNamingIt) {
  if (!std::filesystem::exists(mobilenet())) GTEST_SKIP() << "missing " << mobilenet();
  const std::string dir = make_temp_dir("cli-profile");
  write_file(dir + "/bad.json", "{\"peak_gflops_single_core\": 1}");
  const CommandResult result =
      run_cli("profile " + mobilenet() + " --runs 1 --warmup 0 --sysinfo " + dir + "/bad.json");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stderr_text, dir + "/bad.json")) << result.stderr_text;
  std::filesystem::remove_all(dir);
}

TEST(ProfileCommand, MissingModelIsAnError) {
  const CommandResult result = run_cli("profile /nonexistent/model.onnx --runs 1");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_TRUE(contains(result.stderr_text, "/nonexistent/model.onnx")) << result.stderr_text;
}

}  // namespace
}  // namespace inferlab::testing
