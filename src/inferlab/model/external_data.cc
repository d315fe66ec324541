#include "inferlab/model/external_data.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>

#include "inferlab/core/error.h"

namespace inferlab::model {
namespace {

namespace fs = std::filesystem;

struct ExternalDataRef {
  std::string location;
  int64_t offset = 0;
  std::optional<int64_t> length;
};

int64_t parse_non_negative(const std::string& text, const char* key, const ConvertContext& ctx,
                           const std::string& what) {
  int64_t value = 0;
  bool valid = !text.empty() && text.size() <= 18;
  for (char c : text) {
    if (c < '0' || c > '9')
      valid = false;
    else
      value = value * 10 + (c - '0');
  }
  if (!valid) {
    fail(ErrorCode::kInvalidModel, "{}: {}: external data {} '{}' is not a non-negative integer",
         ctx.source, what, key, text);
  }
  return value;
}

ExternalDataRef parse_ref(const onnx::TensorProto& proto, const ConvertContext& ctx,
                          const std::string& what) {
  ExternalDataRef ref;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    if (entry.key() == "location")
      ref.location = entry.value();
    else if (entry.key() == "offset")
      ref.offset = parse_non_negative(entry.value(), "offset", ctx, what);
    else if (entry.key() == "length")
      ref.length = parse_non_negative(entry.value(), "length", ctx, what);
  }
  if (ref.location.empty()) {
    fail(ErrorCode::kInvalidModel, "{}: {} has external data without a location", ctx.source, what);
  }
  return ref;
}

bool is_inside(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty()) continue;  // trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

// Resolves the location to a canonical path inside the model directory.
fs::path resolve_location(const std::string& location, const ConvertContext& ctx,
                          const std::string& what) {
  if (ctx.base_dir.empty()) {
    fail(ErrorCode::kInvalidModel,
         "{}: {} uses external data ('{}'), which needs a model directory (load the model from a "
         "file)",
         ctx.source, what, location);
  }
  if (location.find('\0') != std::string::npos || fs::path(location).is_absolute()) {
    fail(ErrorCode::kInvalidModel,
         "{}: {}: external data location '{}' must be a relative path inside the model directory",
         ctx.source, what, location);
  }
  std::error_code ec;
  const fs::path dir = fs::canonical(ctx.base_dir, ec);
  if (ec)
    fail(ErrorCode::kIo, "{}: model directory '{}': {}", ctx.source, ctx.base_dir, ec.message());
  const fs::path display_path = fs::path(ctx.base_dir) / location;
  fs::path resolved = fs::weakly_canonical(dir / location, ec);
  if (ec || !is_inside(resolved, dir)) {
    fail(ErrorCode::kInvalidModel,
         "{}: {}: external data location '{}' escapes the model directory {} (after resolving '..' "
         "and symlinks)",
         ctx.source, what, location, dir.string());
  }
  if (!fs::exists(resolved, ec)) {
    fail(ErrorCode::kIo, "{}: {}: external data file '{}' is missing", ctx.source, what,
         display_path.string());
  }
  resolved = fs::canonical(resolved, ec);
  if (ec || !is_inside(resolved, dir)) {
    fail(ErrorCode::kInvalidModel,
         "{}: {}: external data location '{}' escapes the model directory {} (after resolving "
         "symlinks)",
         ctx.source, what, location, dir.string());
  }
  if (!fs::is_regular_file(resolved, ec)) {
    fail(ErrorCode::kIo, "{}: {}: external data '{}' is not a regular file", ctx.source, what,
         display_path.string());
  }
  return resolved;
}

}  // namespace

void read_external_data(const onnx::TensorProto& proto, const ConvertContext& ctx,
                        const std::string& what, void* destination, int64_t bytes) {
  const ExternalDataRef ref = parse_ref(proto, ctx, what);
  const fs::path file = resolve_location(ref.location, ctx, what);
  std::error_code ec;
  const auto file_size = static_cast<int64_t>(fs::file_size(file, ec));
  if (ec)
    fail(ErrorCode::kIo, "{}: {}: cannot stat external data '{}'", ctx.source, what, file.string());
  if (ref.length && *ref.length != bytes) {
    fail(ErrorCode::kInvalidModel,
         "{}: {}: external data length {} does not match the tensor's size of {} bytes", ctx.source,
         what, *ref.length, bytes);
  }
  if (ref.offset > file_size || file_size - ref.offset < bytes) {
    fail(ErrorCode::kIo,
         "{}: {}: external data file '{}' is too short: {} bytes at offset {} requested, file has "
         "{}",
         ctx.source, what, file.string(), bytes, ref.offset, file_size);
  }
  std::ifstream in(file, std::ios::binary);
  in.seekg(ref.offset);
  in.read(static_cast<char*>(destination), bytes);
  if (!in || in.gcount() != bytes) {
    fail(ErrorCode::kIo, "{}: {}: could not read {} bytes from external data '{}'", ctx.source,
         what, bytes, file.string());
  }
}

}  // namespace inferlab::model
