// The onnxruntime Backend: one ONNX Runtime library (dlopen'd) and one
// Ort::Env per backend object; every model opened on it shares both and
// keeps them alive.
#pragma once

#include <memory>
#include <string>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/environment.h"
#include "inferlab/backends/onnxruntime/ort_api.h"
#include "inferlab/backends/onnxruntime/ort_library.h"

namespace inferlab::backends::ort {

class OrtBackend : public Backend {
 public:
  // Loads environment.onnxruntime_library (or the path compiled in when it
  // is empty); throws Error(kUnsupported) when it cannot.
  explicit OrtBackend(const BackendEnvironment& environment);

  std::string name() const override { return "onnxruntime"; }
  BackendInfo info() const override;
  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override;

 private:
  std::shared_ptr<OrtLibrary> library_;
  std::shared_ptr<Ort::Env> env_;
};

}  // namespace inferlab::backends::ort
