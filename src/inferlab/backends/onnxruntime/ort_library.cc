// dlopen of libonnxruntime.so and the checks that it is the library the
// headers were written for (it exports OrtGetApiBase and serves
// ORT_API_VERSION).
#include "inferlab/backends/onnxruntime/ort_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>

#include "inferlab/backends/onnxruntime/ort_api.h"
#include "inferlab/core/error.h"

namespace inferlab::backends::ort {

namespace {

using GetApiBaseFunction = const OrtApiBase* (*)();

[[noreturn]] void fail_to_load(const std::string& path, const std::string& reason) {
  fail(ErrorCode::kUnavailable, "onnxruntime: cannot load {}: {}", path, reason);
}

// The OrtApi of the library at `handle`; throws naming `path` when it has none.
const OrtApi* api_of(void* handle, const std::string& path, std::string& version) {
  dlerror();
  auto get_api_base = reinterpret_cast<GetApiBaseFunction>(dlsym(handle, "OrtGetApiBase"));
  if (get_api_base == nullptr) {
    const char* reason = dlerror();
    fail_to_load(path, reason != nullptr ? reason : "no symbol OrtGetApiBase");
  }
  const OrtApiBase* base = get_api_base();
  version = base != nullptr && base->GetVersionString != nullptr ? base->GetVersionString() : "";
  const OrtApi* api = base != nullptr ? base->GetApi(ORT_API_VERSION) : nullptr;
  if (api == nullptr) {
    fail_to_load(path,
                 fmt::format("ONNX Runtime {} does not provide API version {} (the version "
                             "of the headers this plugin was built with)",
                             version.empty() ? "(unknown version)" : version, ORT_API_VERSION));
  }
  return api;
}

}  // namespace

OrtLibrary::OrtLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}

OrtLibrary::~OrtLibrary() {
  // RTLD_NODELETE keeps the code mapped (ONNX Runtime is not made to be
  // unloaded); this only drops our reference.
  if (handle_ != nullptr) dlclose(handle_);
}

std::shared_ptr<OrtLibrary> OrtLibrary::load(const std::string& path) {
  if (path.empty()) fail_to_load("(no path)", "the onnxruntime library path is empty");
  const auto start = std::chrono::steady_clock::now();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* reason = dlerror();
    fail_to_load(path, reason != nullptr ? reason : "dlopen failed");
  }
  std::shared_ptr<OrtLibrary> library(new OrtLibrary(path, handle));
  const OrtApi* api = api_of(handle, path, library->version_);
  const OrtApi* current = Ort::detail::Global::Api();
  if (current != nullptr && current != api) {
    fail_to_load(path, "another ONNX Runtime library is already in use in this process");
  }
  Ort::InitApi(api);
  library->build_info_ = Ort::GetBuildInfoString();
  library->providers_ = Ort::GetAvailableProviders();
  library->load_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return library;
}

bool OrtLibrary::has_provider(const std::string& provider) const {
  return std::find(providers_.begin(), providers_.end(), provider) != providers_.end();
}

}  // namespace inferlab::backends::ort
