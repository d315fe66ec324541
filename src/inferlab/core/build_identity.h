// Which build of InferLab is running: what a saved plan must match before it
// is trusted. The GNU build-id of libinferlab (changes with every different
// binary, read from the loaded image, no file I/O), else the SHA-256 of the
// library file.
#pragma once

#include <string>

namespace inferlab {

// "build-id:<hex>" or "sha256:<hex>"; computed once per process.
const std::string& library_build_identity();

}  // namespace inferlab
