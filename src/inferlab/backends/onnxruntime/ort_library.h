// The ONNX Runtime shared library, opened with dlopen from the path the
// BackendEnvironment names (so neither libinferlab nor this plugin links it,
// and a missing library makes only this backend unavailable). Loading also
// points ORT's C++ API at that library's OrtApi (Ort::InitApi): the C++ API
// keeps that pointer in a process-wide variable of its own, so a process can
// use one ONNX Runtime library at a time, and a second, different one is refused.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace inferlab::backends::ort {

class OrtLibrary {
 public:
  // Opens `path` and initializes the C++ API; throws Error(kUnsupported)
  // "onnxruntime: cannot load <path>: <reason>" when that fails.
  static std::shared_ptr<OrtLibrary> load(const std::string& path);

  ~OrtLibrary();
  OrtLibrary(const OrtLibrary&) = delete;
  OrtLibrary& operator=(const OrtLibrary&) = delete;

  const std::string& path() const { return path_; }
  const std::string& version() const { return version_; }
  const std::string& build_info() const { return build_info_; }
  // Execution providers compiled into this library ("CPUExecutionProvider", ...).
  const std::vector<std::string>& providers() const { return providers_; }
  bool has_provider(const std::string& provider) const;
  double load_ms() const { return load_ms_; }

 private:
  OrtLibrary(std::string path, void* handle);

  std::string path_;
  void* handle_ = nullptr;
  std::string version_;
  std::string build_info_;
  std::vector<std::string> providers_;
  double load_ms_ = 0.0;
};

}  // namespace inferlab::backends::ort
