// BackendEnvironment: where the peer engines live on this machine and how
// their worker processes are started. Filled once at the program's edge
// (from_process_environment reads INFERLAB_* variables); the library never
// reads the environment itself.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::backends {

struct BackendEnvironment {
  // Holds libinferlab_backend_<name>.so, inferlab-backend-host and the
  // Python worker package (inferlab_worker/). Default: `backends/` beside libinferlab.so.
  std::string plugin_dir;
  // ONNX Runtime's shared library (from the npm package in the cache).
  std::string onnxruntime_library;
  // Directory holding OpenBLAS's (OpenMP) libblas.so.3/liblapack.so.3,
  // put first on LD_LIBRARY_PATH of PyTorch workers; "" when absent.
  std::string openblas_dir;
  std::string python_executable = "/usr/bin/python3";
  // Seconds a worker may take to start (import its framework) before it is
  // declared hung and killed.
  double worker_start_timeout_s = 120.0;

  // Defaults: INFERLAB_PLUGIN_DIR, INFERLAB_ONNXRUNTIME_LIBRARY,
  // INFERLAB_OPENBLAS_DIR, INFERLAB_PYTHON override; otherwise derived from
  // INFERLAB_CACHE (default ~/.cache/inferlab) and libinferlab.so's location.
  static BackendEnvironment from_process_environment();

  // Environment variables for a PyTorch worker computing with `threads`
  // threads (0 = all cores): LD_LIBRARY_PATH to OpenBLAS, OPENBLAS_CORETYPE,
  // ATEN_CPU_CAPABILITY from this CPU's ISA, OMP_NUM_THREADS and friends.
  std::map<std::string, std::string> torch_worker_variables(int threads) const;

  nlohmann::json to_json() const;
};

}  // namespace inferlab::backends
