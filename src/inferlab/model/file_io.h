// Reading files with the checks every importer needs: the file exists, is a
// regular file, and is not larger than the caller allows.
#pragma once

#include <cstdint>
#include <string>

namespace inferlab::model {

// Reads `path` completely. Throws Error(kNotFound) naming `path` when it is
// missing, Error(kIo) when it is not a regular file or unreadable, and
// Error(kLimitExceeded) when it is larger than `max_bytes`.
std::string read_whole_file(const std::string& path, int64_t max_bytes);

// The size of `path` in bytes, after the same checks as read_whole_file (for
// readers that stream the file instead of holding it whole).
uintmax_t checked_file_size(const std::string& path, int64_t max_bytes);

}  // namespace inferlab::model
