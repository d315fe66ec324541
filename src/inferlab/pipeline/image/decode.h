// Decoding JPEG (libjpeg-turbo) and PNG (libspng) files into Images, with
// the checks a server facing arbitrary uploads needs: the format is told
// from the bytes, not the name; a pixel-count limit stops decompression
// bombs before any pixel memory is allocated; a truncated or corrupt file
// is an error naming the file, never a partial image.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "inferlab/pipeline/image/image.h"

namespace inferlab::pipeline {

enum class ImageFormat { kJpeg, kPng, kUnknown };

// What the first bytes say the file is.
ImageFormat sniff_image_format(std::span<const uint8_t> bytes);

struct DecodeOptions {
  // Width x height beyond which a file is refused (about 8K x 8K by default).
  uint64_t max_pixels = uint64_t{64} << 20;
  // decode_image_file refuses larger files before reading them.
  uint64_t max_file_bytes = uint64_t{256} << 20;
  // The size the image is about to be resized to (0: unknown). A JPEG at
  // least twice that size in both directions is decoded at 1/2, 1/4 or 1/8
  // scale by the DCT itself, never smaller than the target.
  int target_width = 0;
  int target_height = 0;
  // Gray output (1 channel) instead of RGB.
  bool gray = false;
  // Turn the image upright by its EXIF orientation (JPEG).
  bool apply_exif_orientation = true;
};

// Throws Error (kInvalidArgument for a file that is not a valid image of a
// known format, kLimitExceeded beyond max_pixels) naming `name`.
Image decode_image(std::span<const uint8_t> bytes, const DecodeOptions& options,
                   const std::string& name);
// Reads the file and decodes it.
Image decode_image_file(const std::string& path, const DecodeOptions& options = {});

}  // namespace inferlab::pipeline
