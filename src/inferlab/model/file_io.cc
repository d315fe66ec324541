#include "inferlab/model/file_io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "inferlab/core/error.h"

namespace inferlab::model {

namespace fs = std::filesystem;

uintmax_t checked_file_size(const std::string& path, int64_t max_bytes) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail(ErrorCode::kNotFound, "{}: file not found", path);
  if (!fs::is_regular_file(status)) fail(ErrorCode::kIo, "{}: not a regular file", path);
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(ErrorCode::kIo, "{}: cannot read its size: {}", path, ec.message());
  if (size > static_cast<uintmax_t>(max_bytes)) {
    fail(ErrorCode::kLimitExceeded, "{}: file is {} bytes, more than the limit of {} bytes", path,
         size, max_bytes);
  }
  return size;
}

std::string read_whole_file(const std::string& path, int64_t max_bytes) {
  const uintmax_t size = checked_file_size(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kIo, "{}: cannot open: {}", path, std::strerror(errno));
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) {
    fail(ErrorCode::kIo, "{}: read {} of {} bytes", path, in.gcount(), size);
  }
  return bytes;
}

}  // namespace inferlab::model
