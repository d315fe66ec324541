// `inferlab bench` and `inferlab gate` end to end on mobilenet_v2's model
// directory with three backends (few, short rounds: this checks behaviour,
// not speed): every figure of the schema is present, every report file is
// written, backend options reach their backend, the gate passes a result
// against itself and fails an injected 20% regression, and sweep and
// backend-option misuse are clear errors.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"

namespace inferlab::testing {
namespace {

class BenchCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(make_temp_dir("inferlab-bench-cli"));
    const std::string model = cache_dir() + "/models/zoo/mobilenet_v2";
    result_ = new CommandResult(
        run_cli("bench " + model +
                " --backends native,onnxruntime,libtorch --threads 1 --rounds 3 --min-iterations 3"
                " --min-round-ms 100 --warmup-runs 3 --settle-ms 20"
                " --backend-option onnxruntime:denormals=flush"
                " --backend-option native:denormals=keep --json " +
                *dir_ + "/r.json --csv " + *dir_ + "/r.csv --markdown " + *dir_ + "/r.md --html " +
                *dir_ + "/r.html"));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete result_;
  }
  static nlohmann::json result_json() {
    std::ifstream file(*dir_ + "/r.json");
    return nlohmann::json::parse(file);
  }
  static std::string* dir_;
  static CommandResult* result_;
};
std::string* BenchCommand::dir_ = nullptr;
CommandResult* BenchCommand::result_ = nullptr;

TEST_F(BenchCommand, PrintsTheTableWithEveryBackend) {
  ASSERT_EQ(result_->exit_code, 0) << result_->stderr_text;
  for (const char* text : {"median ms", "native", "onnxruntime", "libtorch", "reference"})
    EXPECT_NE(result_->stdout_text.find(text), std::string::npos) << text;
}

TEST_F(BenchCommand, ResultHasEveryFigure) {
  ASSERT_EQ(result_->exit_code, 0) << result_->stderr_text;
  const nlohmann::json result = result_json();
  EXPECT_EQ(result["schema"], "inferlab-bench");
  EXPECT_FALSE(result["environment"]["machine"]["cpu_model"].get<std::string>().empty());
  EXPECT_EQ(result["model"]["sha256"].get<std::string>().size(), 64u);
  const nlohmann::json& backends = result["points"][0]["backends"];
  ASSERT_EQ(backends.size(), 3u);
  for (const nlohmann::json& backend : backends) {
    ASSERT_EQ(backend["status"], "ok") << backend.dump();
    for (const char* key :
         {"startup_ms", "load_ms", "cold_start_ms", "headline_ms", "trimmed_mean_ms"})
      EXPECT_GT(backend[key].get<double>(), 0.0) << backend["name"] << " " << key;
    for (const char* key : {"p50", "p90", "p95", "p99", "mean", "min", "max"})
      EXPECT_GT(backend["latency_ms"][key].get<double>(), 0.0) << key;
    EXPECT_EQ(backend["rounds"].size(), 3u);
    EXPECT_GT(backend["throughput"]["samples_per_s"].get<double>(), 0.0);
    EXPECT_GT(backend["memory_mib"]["peak"].get<double>(),
              backend["memory_mib"]["before_open"].get<double>());
    EXPECT_TRUE(backend["accuracy"]["passed"].get<bool>()) << backend["accuracy"].dump();
    EXPECT_EQ(backend["accuracy"]["outputs"][0]["top1_agreement"], 1.0);
    if (backend["name"] != result["settings"]["reference"]) {
      EXPECT_TRUE(backend.contains("ratio_to_reference"));
    }
  }
}

TEST_F(BenchCommand, WritesEveryReport) {
  ASSERT_EQ(result_->exit_code, 0) << result_->stderr_text;
  EXPECT_NE(read_file(*dir_ + "/r.csv").find("libtorch"), std::string::npos);
  EXPECT_NE(read_file(*dir_ + "/r.md").find("libtorch"), std::string::npos);
  const std::string html = read_file(*dir_ + "/r.html");
  EXPECT_NE(html.find("<html"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
}

TEST_F(BenchCommand, GatePassesAResultAgainstItselfAndFailsAnInjectedRegression) {
  ASSERT_EQ(result_->exit_code, 0) << result_->stderr_text;
  const std::string path = *dir_ + "/r.json";
  const CommandResult same = run_cli("gate " + path + " --baseline " + path);
  EXPECT_EQ(same.exit_code, 0) << same.stdout_text << same.stderr_text;
  nlohmann::json slower = result_json();
  for (nlohmann::json& backend : slower["points"][0]["backends"]) {
    if (!backend.contains("ratio_to_reference")) continue;
    nlohmann::json& ratio = backend["ratio_to_reference"];
    const double width = ratio["interval"][1].get<double>() - ratio["interval"][0].get<double>();
    ratio["value"] = ratio["value"].get<double>() * 1.2;
    // Far enough that the intervals cannot overlap: the regression is real.
    ratio["interval"] = {ratio["value"].get<double>() - width / 2 + 10,
                         ratio["value"].get<double>() + width / 2 + 10};
  }
  write_file(*dir_ + "/slower.json", slower.dump());
  const CommandResult regressed = run_cli("gate " + *dir_ + "/slower.json --baseline " + path);
  EXPECT_EQ(regressed.exit_code, 1) << regressed.stdout_text;
  EXPECT_NE(regressed.stdout_text.find("regressed"), std::string::npos);
}

// --backend-option reaches the named backend only, and the result says so.
TEST_F(BenchCommand, BackendOptionsReachTheirBackend) {
  ASSERT_EQ(result_->exit_code, 0) << result_->stderr_text;
  const nlohmann::json result = result_json();
  EXPECT_EQ(result["settings"]["backend_settings"]["onnxruntime"]["denormals"], "flush");
  EXPECT_EQ(result["settings"]["backend_settings"]["native"]["denormals"], "keep");
  for (const nlohmann::json& backend : result["points"][0]["backends"]) {
    const nlohmann::json& configuration = backend["configuration"];
    if (backend["name"] == "onnxruntime") {
      EXPECT_EQ(configuration["denormals"], "flush");
    } else if (backend["name"] == "native") {
      EXPECT_EQ(configuration["denormals"], "keep");
    } else {
      EXPECT_FALSE(configuration.contains("denormals")) << backend["name"];
    }
  }
}

TEST(BenchCommandErrors, ABackendOptionNamesABenchmarkedBackend) {
  const std::string model = cache_dir() + "/models/zoo/mobilenet_v2";
  const CommandResult other = run_cli("bench " + model + " --backend-option libtorch:freeze=0");
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.stderr_text.find("'libtorch' is not one of --backends"), std::string::npos)
      << other.stderr_text;
  const CommandResult malformed = run_cli("bench " + model + " --backend-option denormals=flush");
  EXPECT_NE(malformed.exit_code, 0);
  EXPECT_NE(malformed.stderr_text.find("BACKEND:KEY=VALUE"), std::string::npos)
      << malformed.stderr_text;
  const CommandResult bad_value =
      run_cli("bench " + model +
              " --backends native --backend-option native:denormals=maybe --rounds 1"
              " --min-round-ms 1 --warmup-runs 1");
  EXPECT_NE(bad_value.exit_code, 0);
  EXPECT_NE(bad_value.stderr_text.find("native: setting denormals is 'maybe'"), std::string::npos)
      << bad_value.stderr_text;
}

TEST(BenchCommandErrors, SweepingTwoVariablesNeedsCross) {
  const CommandResult result =
      run_cli("bench " + cache_dir() + "/models/zoo/mobilenet_v2 --batch 1,2 --threads 1,2");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.stderr_text.find("--cross"), std::string::npos) << result.stderr_text;
}

TEST(BenchCommandErrors, BatchSweepOnAStaticBatchModelIsAClearError) {
  const CommandResult result =
      run_cli("bench " + cache_dir() +
              "/models/mobilenet_v2_op17.onnx --backends native --batch 1,4"
              " --rounds 1 --min-round-ms 1");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.stderr_text.find("fixed at 1"), std::string::npos) << result.stderr_text;
}

}  // namespace
}  // namespace inferlab::testing

namespace inferlab::testing {
namespace {

TEST(BenchCommandErrors, AFailingBackendIsAnErrorRowAndTheOthersContinue) {
  const std::string dir = make_temp_dir("inferlab-bench-failing");
  const CommandResult result = run_command(
      "INFERLAB_ONNXRUNTIME_LIBRARY=/nonexistent/libonnxruntime.so " + cli_path() + " bench " +
      cache_dir() + "/models/zoo/mobilenet_v2 --backends native,onnxruntime --reference native" +
      " --rounds 2 --min-iterations 2 --min-round-ms 1 --warmup-runs 1 --settle-ms 1 --json " +
      dir + "/r.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("error:"), std::string::npos) << result.stdout_text;
  const nlohmann::json report = nlohmann::json::parse(read_file(dir + "/r.json"));
  const nlohmann::json& backends = report["points"][0]["backends"];
  EXPECT_EQ(backends[0]["status"], "ok");
  EXPECT_EQ(backends[1]["status"], "error");
  EXPECT_NE(backends[1]["error"].get<std::string>().find("/nonexistent/libonnxruntime.so"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(BenchCommandErrors, CheckAccuracyFailsWhenAToleranceIsNotMet) {
  // A tolerance of 0 cannot be met by two engines that round differently.
  const CommandResult result = run_cli(
      "bench " + cache_dir() +
      "/models/zoo/mobilenet_v2 --backends native,onnxruntime --tolerance 0 --check-accuracy"
      " --rounds 1 --min-iterations 1 --min-round-ms 1 --warmup-runs 1 --settle-ms 1");
  EXPECT_EQ(result.exit_code, 1) << result.stdout_text << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("FAIL"), std::string::npos) << result.stdout_text;
}

TEST(GateInterleave, TheSameBuildTwicePasses) {
  const std::string dir = make_temp_dir("inferlab-gate-interleave");
  const CommandResult result =
      run_cli("gate --interleave " + cli_path() + " " + cli_path() + " " + cache_dir() +
              "/models/zoo/mobilenet_v2 --threads 1 --rounds 4 --min-iterations 3"
              " --min-round-ms 100 --json " +
              dir + "/gate.json --bench-json " + dir + "/bench.json");
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("gate: passed"), std::string::npos) << result.stdout_text;
  const nlohmann::json gate = nlohmann::json::parse(read_file(dir + "/gate.json"));
  EXPECT_EQ(gate["mode"], "interleave");
  ASSERT_EQ(gate["findings"].size(), 1u);
  EXPECT_EQ(gate["findings"][0]["backend"], "new");
  const nlohmann::json bench = nlohmann::json::parse(read_file(dir + "/bench.json"));
  EXPECT_EQ(bench["settings"]["reference"], "old");
  const nlohmann::json& backends = bench["points"][0]["backends"];
  ASSERT_EQ(backends.size(), 2u);
  EXPECT_EQ(backends[0]["name"], "old");
  EXPECT_EQ(backends[1]["name"], "new");
  // Both builds ran the same engine on the same inputs: the same outputs.
  EXPECT_EQ(backends[1]["accuracy"]["outputs"][0]["max_abs"],
            backends[0]["accuracy"]["outputs"][0]["max_abs"]);
  std::filesystem::remove_all(dir);
}

// --shape fixes a dynamic input for both builds (PaddleOCR's detector is
// gated at 1x3x640x640 this way); the point records the shape.
TEST(GateInterleave, ShapeFixesADynamicInputForBothBuilds) {
  const std::string dir = make_temp_dir("inferlab-gate-shape");
  const CommandResult result =
      run_cli("gate --interleave " + cli_path() + " " + cli_path() + " " + cache_dir() +
              "/models/mobilenet_v2_op17_dyn.onnx --shape input=2,3,224,224 --threads 1"
              // Two short rounds decide nothing about speed: no verdict can fail.
              " --rounds 2 --min-iterations 2 --min-round-ms 10 --max-regression 1000%"
              " --bench-json " +
              dir + "/bench.json");
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  const nlohmann::json bench = nlohmann::json::parse(read_file(dir + "/bench.json"));
  EXPECT_EQ(bench["points"][0]["point"]["shapes"]["input"], nlohmann::json({2, 3, 224, 224}));
  std::filesystem::remove_all(dir);
}

TEST(GateInterleave, APathThatIsNotABuildIsAUsageError) {
  const CommandResult result = run_cli("gate --interleave /nonexistent/inferlab " + cli_path() +
                                       " " + cache_dir() + "/models/zoo/mobilenet_v2");
  EXPECT_EQ(result.exit_code, 2) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("/nonexistent/inferlab"), std::string::npos)
      << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("not an InferLab build"), std::string::npos);
}

TEST(GateInterleave, ResultFilesAndInterleaveDoNotMix) {
  const CommandResult result = run_cli("gate a.json --baseline b.json --interleave " + cli_path() +
                                       " " + cli_path() + " model.onnx");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.stderr_text.find("--interleave"), std::string::npos) << result.stderr_text;
}

TEST(CallTimeout, RunStopsAHungForwardWithAClearError) {
  const CommandResult result = run_cli("run " + source_dir() +
                                       "/tests/backends/data/slow_forward --backend python"
                                       " --call-timeout 2");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.stderr_text.find("within 2000 ms"), std::string::npos) << result.stderr_text;
}

TEST(CallTimeout, BenchMakesAHungBackendAnErrorRow) {
  const std::string dir = make_temp_dir("inferlab-bench-timeout");
  const CommandResult result = run_cli(
      "bench " + source_dir() +
      "/tests/backends/data/slow_forward --backends python --reference python --call-timeout 2"
      " --rounds 1 --min-iterations 1 --min-round-ms 1 --warmup-runs 1 --json " +
      dir + "/r.json");
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
  const nlohmann::json report = nlohmann::json::parse(read_file(dir + "/r.json"));
  const nlohmann::json& backend = report["points"][0]["backends"][0];
  EXPECT_EQ(backend["status"], "error");
  EXPECT_NE(backend["error"].get<std::string>().find("within 2000 ms"), std::string::npos)
      << backend["error"];
  EXPECT_EQ(report["settings"]["call_timeout_s"], 2.0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace inferlab::testing
