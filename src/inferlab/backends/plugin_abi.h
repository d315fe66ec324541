// The entry points of a peer backend's shared object
// (libinferlab_backend_<name>.so), looked up by BackendRegistry with dlsym.
// Plugins are built from this tree with the same compiler and link
// libinferlab.so, so C++ types cross the boundary; the ABI version guards
// against a stale plugin left in the plugin directory.
#pragma once

#include "inferlab/backends/backend.h"
#include "inferlab/backends/environment.h"

namespace inferlab::backends {

// Bump whenever backend.h, model_source.h or environment.h change layout.
constexpr int kBackendAbiVersion = 1;

using AbiVersionFunction = int (*)();
// Returns a new Backend (owned by the caller) or throws inferlab::Error.
using CreateBackendFunction = Backend* (*)(const BackendEnvironment& environment);

constexpr const char* kAbiVersionSymbol = "inferlab_backend_abi_version";
constexpr const char* kCreateBackendSymbol = "inferlab_create_backend";

}  // namespace inferlab::backends

// A plugin defines, with C linkage:
//   extern "C" int inferlab_backend_abi_version() { return kBackendAbiVersion; }
//   extern "C" inferlab::backends::Backend* inferlab_create_backend(
//       const inferlab::backends::BackendEnvironment& environment);
