// Where peers live and how PyTorch workers are tuned. PyTorch as Debian ships
// it links the reference BLAS and dispatches AVX2 by default; OpenBLAS
// (extracted by tools/install.sh into the cache, never installed system-wide,
// so Debian's libblas alternative is untouched) needs OPENBLAS_CORETYPE on
// this CPU, and ATen needs ATEN_CPU_CAPABILITY to use AVX-512. These are read
// when the libraries load, so they can only be set for a fresh process.
#include "inferlab/backends/environment.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

namespace inferlab::backends {

namespace fs = std::filesystem;

namespace {

std::string variable(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string library_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&library_directory), &info) == 0 ||
      info.dli_fname == nullptr) {
    return ".";
  }
  return fs::path(info.dli_fname).parent_path().string();
}

bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace

BackendEnvironment BackendEnvironment::from_process_environment() {
  BackendEnvironment environment;
  const std::string home = variable("HOME", "/root");
  const std::string cache = variable("INFERLAB_CACHE", home + "/.cache/inferlab");
  environment.plugin_dir = variable("INFERLAB_PLUGIN_DIR", library_directory() + "/backends");
  environment.onnxruntime_library = variable(
      "INFERLAB_ONNXRUNTIME_LIBRARY",
      cache + "/npm/node_modules/com.github.asus4.onnxruntime/Plugins/Linux/x64/libonnxruntime.so");
  const std::string openblas = cache + "/openblas/usr/lib/x86_64-linux-gnu/openblas-openmp";
  environment.openblas_dir =
      variable("INFERLAB_OPENBLAS_DIR", fs::exists(openblas + "/libblas.so.3") ? openblas : "");
  environment.python_executable = variable("INFERLAB_PYTHON", environment.python_executable);
  return environment;
}

std::map<std::string, std::string> BackendEnvironment::torch_worker_variables(int threads) const {
  const int count = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  std::map<std::string, std::string> variables;
  const std::string thread_text = std::to_string(count > 0 ? count : 1);
  variables["OMP_NUM_THREADS"] = thread_text;
  variables["OPENBLAS_NUM_THREADS"] = thread_text;
  variables["MKL_NUM_THREADS"] = thread_text;
  if (!openblas_dir.empty()) {
    const std::string inherited = variable("LD_LIBRARY_PATH", "");
    variables["LD_LIBRARY_PATH"] = openblas_dir + (inherited.empty() ? "" : ":" + inherited);
    // Debian's OpenBLAS 0.3.21 does not recognize this CPU generation and
    // would fall back to SSE3 kernels.
    if (cpu_has_avx512())
      variables["OPENBLAS_CORETYPE"] = "SkylakeX";
    else if (cpu_has_avx2())
      variables["OPENBLAS_CORETYPE"] = "Haswell";
  }
  if (cpu_has_avx512())
    variables["ATEN_CPU_CAPABILITY"] = "avx512";
  else if (cpu_has_avx2())
    variables["ATEN_CPU_CAPABILITY"] = "avx2";
  return variables;
}

nlohmann::json BackendEnvironment::to_json() const {
  return {{"plugin_dir", plugin_dir},
          {"onnxruntime_library", onnxruntime_library},
          {"openblas_dir", openblas_dir},
          {"python_executable", python_executable}};
}

}  // namespace inferlab::backends
