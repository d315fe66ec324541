// The registry: names, plugins found or missing (with the reason), broken
// plugin files, and the linkage rules — inferlab and libinferlab link neither
// ONNX Runtime nor LibTorch, so a missing engine costs the others nothing;
// libinferlab and the worker host link none of the parts' server and image
// libraries.
#include "inferlab/backends/registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "inferlab/backends/model_source.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

BackendEnvironment environment_with_plugin_dir(const std::string& plugin_dir) {
  BackendEnvironment environment = BackendEnvironment::from_process_environment();
  environment.plugin_dir = plugin_dir;
  return environment;
}

TEST(BackendRegistry, KnowsTheFourBackendsInOrder) {
  EXPECT_EQ(BackendRegistry::known_names(),
            (std::vector<std::string>{"native", "onnxruntime", "libtorch", "python"}));
}

TEST(BackendRegistry, UnknownNameListsTheKnownOnes) {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  try {
    registry.get("tensorrt");
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(error.what()).find("onnxruntime"), std::string::npos);
  }
}

TEST(BackendRegistry, MissingPluginMakesOnlyThatBackendUnavailable) {
  const std::string empty_dir = testing::make_temp_dir("inferlab-no-plugins");
  BackendRegistry registry(environment_with_plugin_dir(empty_dir));
  const std::vector<BackendInfo> infos = registry.probe_all();
  ASSERT_EQ(infos.size(), 4u);
  EXPECT_TRUE(infos[0].available) << infos[0].unavailable_reason;
  for (size_t i = 1; i < infos.size(); ++i) {
    EXPECT_FALSE(infos[i].available) << infos[i].name;
    EXPECT_NE(infos[i].unavailable_reason.find(empty_dir), std::string::npos)
        << infos[i].unavailable_reason;
  }
  std::filesystem::remove_all(empty_dir);
}

TEST(BackendRegistry, CorruptPluginFileIsAnErrorNamingIt) {
  const std::string dir = testing::make_temp_dir("inferlab-bad-plugin");
  const std::string path = plugin_path(dir, "onnxruntime");
  testing::write_file(path, "this is not a shared object");
  BackendRegistry registry(environment_with_plugin_dir(dir));
  const BackendInfo info = registry.probe("onnxruntime");
  EXPECT_FALSE(info.available);
  EXPECT_NE(info.unavailable_reason.find(path), std::string::npos) << info.unavailable_reason;
  std::filesystem::remove_all(dir);
}

TEST(BackendRegistry, APluginWithoutEntryPointsIsRefused) {
  // libm is a valid shared object but not a backend plugin.
  const std::string dir = testing::make_temp_dir("inferlab-not-plugin");
  std::filesystem::copy_file("/lib/x86_64-linux-gnu/libm.so.6", plugin_path(dir, "libtorch"));
  BackendRegistry registry(environment_with_plugin_dir(dir));
  try {
    registry.get("libtorch", Placement::kInProcess);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnavailable);
    EXPECT_NE(std::string(error.what()).find("not an InferLab backend plugin"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(BackendRegistry, PythonCannotRunInProcess) {
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  EXPECT_THROW(registry.get("python", Placement::kInProcess), Error);
}

TEST(BackendRegistry, ABuildLabelRunsItsEngineFromItsOwnPluginDirectory) {
  const std::string empty_dir = testing::make_temp_dir("inferlab-other-build");
  BackendRegistry registry(BackendEnvironment::from_process_environment());
  registry.add_build("old", "native", empty_dir);
  EXPECT_EQ(registry.engine_of("old"), "native");
  EXPECT_EQ(registry.engine_of("onnxruntime"), "onnxruntime");
  EXPECT_THROW(registry.get("old", Placement::kInProcess), Error);
  // The build's worker host is looked for in its own directory, not ours.
  const BackendInfo info = registry.get("old")->info();
  EXPECT_EQ(info.name, "old");
  const std::string model = testing::cache_dir() + "/models/zoo/mobilenet_v2";
  try {
    registry.get("old")->open(ModelSource::resolve(model), BackendOptions{});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(empty_dir), std::string::npos) << error.what();
  }
  EXPECT_THROW(registry.add_build("native", "native", empty_dir), Error);
  EXPECT_THROW(registry.add_build("old", "tensorrt", empty_dir), Error);
  std::filesystem::remove_all(empty_dir);
}

TEST(BackendLinkage, InferlabAndItsLibraryLinkNoPeerEngine) {
  const std::string plugin_dir = BackendEnvironment::from_process_environment().plugin_dir;
  for (const std::string& binary : {testing::cli_path(), plugin_dir + "/../libinferlab.so",
                                    plugin_dir + "/inferlab-backend-host"}) {
    const testing::CommandResult ldd = testing::run_command("ldd '" + binary + "'");
    ASSERT_EQ(ldd.exit_code, 0) << binary << ": " << ldd.stderr_text;
    EXPECT_NE(ldd.stdout_text.find("libfmt"), std::string::npos) << ldd.stdout_text;
    EXPECT_EQ(ldd.stdout_text.find("onnxruntime"), std::string::npos) << binary;
    EXPECT_EQ(ldd.stdout_text.find("libtorch"), std::string::npos) << binary;
    EXPECT_EQ(ldd.stdout_text.find("libc10"), std::string::npos) << binary;
  }
}

// The parts built on the engine (serve, pipeline, quantize, loadgen) are
// libraries only the CLI links (CMakeLists.txt, inferlab_add_part): their
// dependencies must never reach the library or the worker host, which every
// embedder and every worker process loads.
TEST(BackendLinkage, TheLibraryAndTheWorkerHostLinkNoServerOrImageLibraries) {
  const std::string plugin_dir = BackendEnvironment::from_process_environment().plugin_dir;
  const std::vector<std::string> forbidden = {"libgrpc",   "libgpr", "libboost", "libjpeg",
                                              "turbojpeg", "libpng", "libspng",  "libopencv"};
  for (const std::string& binary :
       {plugin_dir + "/../libinferlab.so", plugin_dir + "/inferlab-backend-host"}) {
    const testing::CommandResult ldd = testing::run_command("ldd '" + binary + "'");
    ASSERT_EQ(ldd.exit_code, 0) << binary << ": " << ldd.stderr_text;
    ASSERT_NE(ldd.stdout_text.find("libfmt"), std::string::npos) << ldd.stdout_text;
    for (const std::string& library : forbidden) {
      EXPECT_EQ(ldd.stdout_text.find(library), std::string::npos)
          << binary << " links " << library << ":\n"
          << ldd.stdout_text;
    }
  }
}

TEST(BackendEnvironment, TorchWorkersGetOpenBlasAndTheirThreadCount) {
  const BackendEnvironment environment = BackendEnvironment::from_process_environment();
  const auto variables = environment.torch_worker_variables(2);
  EXPECT_EQ(variables.at("OMP_NUM_THREADS"), "2");
  ASSERT_FALSE(environment.openblas_dir.empty()) << "tools/install.sh unpacks OpenBLAS";
  EXPECT_EQ(variables.at("LD_LIBRARY_PATH").rfind(environment.openblas_dir, 0), 0u);
  EXPECT_TRUE(std::filesystem::exists(environment.openblas_dir + "/libblas.so.3"));
}

TEST(InstallScript, UnpackingOpenBlasLeavesTheBlasAlternativeAsItWas) {
  const std::string query = "update-alternatives --query libblas.so.3-x86_64-linux-gnu";
  const testing::CommandResult before = testing::run_command(query);
  const std::string cache = testing::make_temp_dir("inferlab-openblas");
  const testing::CommandResult install = testing::run_command(
      "bash '" + testing::source_dir() + "/tools/install_openblas.sh' '" + cache + "'");
  ASSERT_EQ(install.exit_code, 0) << install.stdout_text << install.stderr_text;
  EXPECT_TRUE(std::filesystem::exists(
      cache + "/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"));
  const testing::CommandResult after = testing::run_command(query);
  EXPECT_EQ(before.exit_code, after.exit_code);
  EXPECT_EQ(before.stdout_text, after.stdout_text);
  const testing::CommandResult dpkg = testing::run_command(
      "dpkg -s libopenblas0-openmp 2>/dev/null | grep -c '^Status: install ok'");
  EXPECT_NE(dpkg.stdout_text, "1\n") << "the install must not install OpenBLAS system-wide";
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace inferlab::backends
