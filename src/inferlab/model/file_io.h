// Reading whole files into memory with the checks every importer needs: the
// file exists, is a regular file, and is not larger than the caller allows.
#pragma once

#include <cstdint>
#include <string>

namespace inferlab::model {

// Reads `path` completely. Throws Error(kIo) naming `path` when it is missing,
// not a regular file or unreadable, and Error(kLimitExceeded) when it is
// larger than `max_bytes`.
std::string read_whole_file(const std::string& path, int64_t max_bytes);

}  // namespace inferlab::model
