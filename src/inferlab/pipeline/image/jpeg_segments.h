// The marker segments of a JPEG file before its image data (APPn, DQT,
// SOF, ...): what EXIF orientation and the Adobe CMYK convention are read
// from. A malformed length ends the walk; it never reads past the bytes.
#pragma once

#include <cstdint>
#include <span>

namespace inferlab::pipeline {

// The payload of the first segment with `marker` (0xE1 for APP1, ...) for
// which `wanted(payload)` holds, or an empty span.
template <typename Predicate>
std::span<const uint8_t> find_jpeg_segment(std::span<const uint8_t> jpeg, uint8_t marker,
                                           Predicate wanted) {
  if (jpeg.size() < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) return {};
  size_t at = 2;
  // FF, marker, big-endian length (which counts itself), payload; until the
  // start of scan (DA) or the end of the image (D9).
  while (at + 4 <= jpeg.size() && jpeg[at] == 0xFF) {
    const uint8_t found = jpeg[at + 1];
    if (found == 0xDA || found == 0xD9) break;
    const size_t length = (static_cast<size_t>(jpeg[at + 2]) << 8) | jpeg[at + 3];
    if (length < 2 || at + 2 + length > jpeg.size()) break;
    const std::span<const uint8_t> payload = jpeg.subspan(at + 4, length - 2);
    if (found == marker && wanted(payload)) return payload;
    at += 2 + length;
  }
  return {};
}

}  // namespace inferlab::pipeline
