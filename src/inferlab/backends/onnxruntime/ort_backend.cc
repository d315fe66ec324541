// OrtBackend and the plugin's entry points (plugin_abi.h).
#include "inferlab/backends/onnxruntime/ort_backend.h"

#include "inferlab/backends/onnxruntime/ort_model.h"
#include "inferlab/backends/plugin_abi.h"
#include "inferlab/core/error.h"

namespace inferlab::backends::ort {

namespace {

constexpr const char* kCudaProvider = "CUDAExecutionProvider";

std::string library_path(const BackendEnvironment& environment) {
  if (!environment.onnxruntime_library.empty()) return environment.onnxruntime_library;
  return INFERLAB_ORT_DEFAULT_LIBRARY;
}

// ORT logs through its own logger to stderr; the library never prints
// (errors come back as exceptions), so only fatal messages get through.
std::shared_ptr<Ort::Env> make_env(const std::string& path) {
  try {
    return std::make_shared<Ort::Env>(ORT_LOGGING_LEVEL_FATAL, "inferlab");
  } catch (const Ort::Exception& error) {
    fail(ErrorCode::kUnsupported, "onnxruntime: cannot create the environment of {}: {}", path,
         error.what());
  }
}

}  // namespace

OrtBackend::OrtBackend(const BackendEnvironment& environment)
    : library_(OrtLibrary::load(library_path(environment))), env_(make_env(library_->path())) {}

BackendInfo OrtBackend::info() const {
  BackendInfo info;
  info.name = name();
  info.available = true;
  info.version = library_->version();
  info.devices = {"cpu"};
  if (library_->has_provider(kCudaProvider)) info.devices.push_back("cuda");
  info.configuration = {{"library", library_->path()},
                        {"providers", library_->providers()},
                        {"build_info", library_->build_info()},
                        {"api_version", ORT_API_VERSION}};
  info.startup_ms = library_->load_ms();
  return info;
}

std::unique_ptr<Model> OrtBackend::open(const ModelSource& source, const BackendOptions& options) {
  const std::string& path = source.require_onnx(name());
  return std::make_unique<OrtModel>(library_, env_, path, options);
}

}  // namespace inferlab::backends::ort

extern "C" __attribute__((visibility("default"))) int inferlab_backend_abi_version() {
  return inferlab::backends::kBackendAbiVersion;
}

extern "C" __attribute__((visibility("default"))) inferlab::backends::Backend*
inferlab_create_backend(const inferlab::backends::BackendEnvironment& environment) {
  return new inferlab::backends::ort::OrtBackend(environment);
}
