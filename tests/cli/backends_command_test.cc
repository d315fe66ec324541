// `inferlab backends` and `inferlab run --backend`, end to end through the
// binary: after a build, every backend is available with a version; a run on
// a model directory works on each engine; a missing plugin directory makes
// peers unavailable with the reason, and an unknown backend is an error.
#include <nlohmann/json.hpp>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

std::string zoo_dir(const std::string& name) { return cache_dir() + "/models/zoo/" + name; }

TEST(BackendsCommand, ListsAllFourBackendsAvailableWithVersions) {
  const CommandResult result = run_cli("backends --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(result.stdout_text);
  std::vector<std::string> names;
  for (const auto& backend : report.at("backends")) {
    names.push_back(backend.at("name").get<std::string>());
    EXPECT_TRUE(backend.at("available").get<bool>()) << backend.dump();
    if (!backend.at("available").get<bool>()) continue;
    EXPECT_FALSE(backend.at("version").get<std::string>().empty()) << backend.dump();
    EXPECT_FALSE(backend.at("devices").empty());
    EXPECT_TRUE(backend.at("configuration").is_object());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"native", "onnxruntime", "libtorch", "python"}));
}

TEST(BackendsCommand, TextListingNamesEachBackend) {
  const CommandResult result = run_cli("backends");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  for (const char* name : {"native", "onnxruntime", "libtorch", "python"})
    EXPECT_NE(result.stdout_text.find(name), std::string::npos) << name;
}

TEST(BackendsCommand, MissingPluginsAreReportedWithTheReason) {
  const std::string empty = make_temp_dir("inferlab-cli-no-plugins");
  const CommandResult result =
      run_command("INFERLAB_PLUGIN_DIR=" + empty + " " + cli_path() + " backends --json -");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(result.stdout_text);
  EXPECT_TRUE(report["backends"][0]["available"].get<bool>());
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_FALSE(report["backends"][i]["available"].get<bool>());
    EXPECT_NE(report["backends"][i]["reason"].get<std::string>().find(empty), std::string::npos);
  }
}

TEST(RunOnBackends, RunsOneModelDirectoryOnEveryBackend) {
  for (const char* backend : {"native", "onnxruntime", "libtorch", "python"}) {
    const CommandResult result =
        run_cli("run " + zoo_dir("mobilenet_v2") + " --backend " + backend + " --json -");
    ASSERT_EQ(result.exit_code, 0) << backend << ": " << result.stderr_text;
    const nlohmann::json report = nlohmann::json::parse(result.stdout_text);
    EXPECT_EQ(report.at("backend"), backend);
    EXPECT_EQ(report.at("outputs").at(0).at("shape"), nlohmann::json({1, 1000}));
    EXPECT_GT(report.at("timings").at("execute_ms").get<double>(), 0.0) << backend;
  }
}

TEST(RunOnBackends, UnknownBackendIsAnErrorListingTheKnownOnes) {
  const CommandResult result = run_cli("run " + zoo_dir("mobilenet_v2") + " --backend tensorrt");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("unknown backend 'tensorrt'"), std::string::npos)
      << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("libtorch"), std::string::npos);
}

TEST(RunOnBackends, ABackendWithoutTheArtifactItNeedsSaysWhichKey) {
  const CommandResult result =
      run_cli("run " + cache_dir() + "/models/mobilenet_v2_op17.onnx --backend libtorch");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("artifacts.torchscript"), std::string::npos)
      << result.stderr_text;
}

}  // namespace
}  // namespace inferlab::testing
