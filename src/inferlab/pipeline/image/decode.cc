#include "inferlab/pipeline/image/decode.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "inferlab/core/error.h"
#include "inferlab/pipeline/image/jpeg_decode.h"
#include "inferlab/pipeline/image/png_decode.h"

namespace inferlab::pipeline {

ImageFormat sniff_image_format(std::span<const uint8_t> bytes) {
  static constexpr uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
    return ImageFormat::kJpeg;
  }
  if (bytes.size() >= sizeof(kPng) && std::memcmp(bytes.data(), kPng, sizeof(kPng)) == 0) {
    return ImageFormat::kPng;
  }
  return ImageFormat::kUnknown;
}

Image decode_image(std::span<const uint8_t> bytes, const DecodeOptions& options,
                   const std::string& name) {
  switch (sniff_image_format(bytes)) {
    case ImageFormat::kJpeg:
      return decode_jpeg(bytes, options, name);
    case ImageFormat::kPng:
      return decode_png(bytes, options, name);
    case ImageFormat::kUnknown:
      break;
  }
  fail(ErrorCode::kInvalidArgument,
       "{}: not a JPEG or PNG file (its first bytes match neither; {} bytes in all)", name,
       bytes.size());
}

Image decode_image_file(const std::string& path, const DecodeOptions& options) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (error)
    fail(ErrorCode::kNotFound, "{}: cannot open the image file ({})", path, error.message());
  if (size > options.max_file_bytes) {
    fail(ErrorCode::kLimitExceeded, "{}: the file has {} bytes, more than {}", path, size,
         options.max_file_bytes);
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) fail(ErrorCode::kNotFound, "{}: cannot open the image file", path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
  if (file.bad()) fail(ErrorCode::kRuntime, "{}: reading the image file failed", path);
  return decode_image(bytes, options, path);
}

}  // namespace inferlab::pipeline
