// The libtorch backend's model: a TorchScript module loaded, frozen and
// optimized for inference, run under c10::InferenceMode. Declared here without
// any LibTorch type so that only libtorch_model.cc includes <torch/script.h>.
#pragma once

#include <memory>

#include "inferlab/backends/backend.h"

namespace inferlab::backends::libtorch {

constexpr const char* kBackendName = "libtorch";

// Opens `source`'s TorchScript artifact. Inputs and outputs come from the
// manifest (TorchScript has no names), so a bare .pt file is refused.
std::unique_ptr<Model> open_model(const ModelSource& source, const BackendOptions& options);

}  // namespace inferlab::backends::libtorch
