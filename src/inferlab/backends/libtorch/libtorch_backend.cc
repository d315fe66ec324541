// The `libtorch` plugin's entry points and its self-description. info() is the
// environment record of a PyTorch worker: LibTorch's build and parallel
// configuration, the CPU capability ATen dispatches to, the BLAS/OpenMP
// libraries actually loaded, and the tuning variables as this process sees
// them (the registry starts the worker with them; see environment.h).
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <link.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "inferlab/backends/libtorch/libtorch_model.h"
#include "inferlab/backends/plugin_abi.h"

namespace inferlab::backends::libtorch {

namespace {

constexpr const char* kSeenVariables[] = {"OPENBLAS_CORETYPE",    "ATEN_CPU_CAPABILITY",
                                          "OMP_NUM_THREADS",      "MKL_NUM_THREADS",
                                          "OPENBLAS_NUM_THREADS", "LD_LIBRARY_PATH"};

// Loaded shared objects that decide PyTorch's speed (BLAS, LAPACK, OpenMP).
std::vector<std::string> loaded_math_libraries() {
  std::vector<std::string> paths;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        for (const char* marker : {"blas", "lapack", "gomp", "libomp", "mkl", "dnnl"}) {
          if (path.find(marker) != std::string::npos) {
            static_cast<std::vector<std::string>*>(data)->push_back(path);
            break;
          }
        }
        return 0;
      },
      &paths);
  return paths;
}

// "CPU capability usage: AVX2" from at::show_config(); honours ATEN_CPU_CAPABILITY.
std::string cpu_capability(const std::string& build_config) {
  const std::string marker = "CPU capability usage: ";
  const size_t at = build_config.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  return build_config.substr(begin, build_config.find('\n', begin) - begin);
}

nlohmann::json seen_variables() {
  nlohmann::json variables = nlohmann::json::object();
  for (const char* name : kSeenVariables) {
    const char* value = std::getenv(name);
    variables[name] = value ? nlohmann::json(value) : nlohmann::json(nullptr);
  }
  return variables;
}

std::vector<std::string> devices() {
  std::vector<std::string> names = {"cpu"};
  if (torch::cuda::is_available()) {
    for (size_t i = 0; i < torch::cuda::device_count(); ++i)
      names.push_back("cuda:" + std::to_string(i));
  }
  return names;
}

class LibTorchBackend final : public Backend {
 public:
  std::string name() const override { return kBackendName; }

  BackendInfo info() const override {
    BackendInfo info;
    info.name = kBackendName;
    info.available = true;
    info.version = TORCH_VERSION;
    info.devices = devices();
    const std::string build_config = at::show_config();
    info.configuration = {{"cpu_capability", cpu_capability(build_config)},
                          {"intra_op_threads", at::get_num_threads()},
                          {"parallel_info", at::get_parallel_info()},
                          {"build_config", build_config},
                          {"math_libraries", loaded_math_libraries()},
                          {"environment", seen_variables()}};
    return info;
  }

  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override {
    return open_model(source, options);
  }
};

}  // namespace

}  // namespace inferlab::backends::libtorch

extern "C" [[gnu::visibility("default")]] int inferlab_backend_abi_version() {
  return inferlab::backends::kBackendAbiVersion;
}

extern "C" [[gnu::visibility("default")]] inferlab::backends::Backend* inferlab_create_backend(
    const inferlab::backends::BackendEnvironment& /*environment: the worker was started with it*/) {
  return new inferlab::backends::libtorch::LibTorchBackend();
}
