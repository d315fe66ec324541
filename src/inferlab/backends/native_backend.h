// The `native` backend: InferLab's own engine (runtime::Session) behind the
// Backend interface. Built into libinferlab; always available.
#pragma once

#include <memory>

#include "inferlab/backends/backend.h"

namespace inferlab::backends {

std::unique_ptr<Backend> make_native_backend();

}  // namespace inferlab::backends
