#include "inferlab/pipeline/image/exif_orientation.h"

#include <cstring>

#include "inferlab/pipeline/image/jpeg_segments.h"

namespace inferlab::pipeline {

namespace {

// Reads TIFF integers in the byte order the EXIF block declares.
class TiffReader {
 public:
  TiffReader(std::span<const uint8_t> tiff, bool little_endian)
      : tiff_(tiff), little_endian_(little_endian) {}
  bool has(size_t offset, size_t bytes) const {
    return offset <= tiff_.size() && bytes <= tiff_.size() - offset;
  }
  uint16_t u16(size_t offset) const {
    const uint16_t a = tiff_[offset], b = tiff_[offset + 1];
    return little_endian_ ? static_cast<uint16_t>(a | (b << 8))
                          : static_cast<uint16_t>((a << 8) | b);
  }
  uint32_t u32(size_t offset) const {
    const uint32_t low = u16(offset + (little_endian_ ? 0 : 2));
    const uint32_t high = u16(offset + (little_endian_ ? 2 : 0));
    return low | (high << 16);
  }

 private:
  std::span<const uint8_t> tiff_;
  bool little_endian_;
};

// The orientation in an APP1 payload ("Exif\0\0" + TIFF), or 1.
int orientation_in_exif(std::span<const uint8_t> payload) {
  if (payload.size() < 14 || std::memcmp(payload.data(), "Exif\0\0", 6) != 0) return 1;
  const std::span<const uint8_t> tiff = payload.subspan(6);
  bool little_endian = false;
  if (tiff[0] == 'I' && tiff[1] == 'I') {
    little_endian = true;
  } else if (!(tiff[0] == 'M' && tiff[1] == 'M')) {
    return 1;
  }
  const TiffReader reader(tiff, little_endian);
  if (reader.u16(2) != 42) return 1;
  const size_t ifd = reader.u32(4);
  if (!reader.has(ifd, 2)) return 1;
  const uint16_t entries = reader.u16(ifd);
  constexpr uint16_t kOrientationTag = 0x0112, kShortType = 3;
  for (size_t i = 0; i < entries; ++i) {
    const size_t entry = ifd + 2 + 12 * i;
    if (!reader.has(entry, 12)) return 1;
    if (reader.u16(entry) != kOrientationTag) continue;
    if (reader.u16(entry + 2) != kShortType || reader.u32(entry + 4) != 1) return 1;
    const int value = reader.u16(entry + 8);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

}  // namespace

int jpeg_exif_orientation(std::span<const uint8_t> jpeg) {
  int orientation = 1;
  find_jpeg_segment(jpeg, 0xE1, [&](std::span<const uint8_t> payload) {
    orientation = orientation_in_exif(payload);
    return orientation != 1;
  });
  return orientation;
}

Image apply_orientation(const Image& image, int orientation) {
  if (orientation < 2 || orientation > 8) return image;
  const int w = image.width, h = image.height, c = image.channels;
  const bool swaps = orientation >= 5;
  Image out;
  out.width = swaps ? h : w;
  out.height = swaps ? w : h;
  out.channels = c;
  out.pixels.resize(image.pixels.size());
  for (int oy = 0; oy < out.height; ++oy) {
    uint8_t* destination = out.row(oy);
    for (int ox = 0; ox < out.width; ++ox) {
      int sx = ox, sy = oy;
      switch (orientation) {
        case 2:
          sx = w - 1 - ox;
          break;  // mirrored
        case 3:
          sx = w - 1 - ox;
          sy = h - 1 - oy;
          break;  // upside down
        case 4:
          sy = h - 1 - oy;
          break;  // mirrored vertically
        case 5:
          sx = oy;
          sy = ox;
          break;  // transposed
        case 6:
          sx = oy;
          sy = h - 1 - ox;
          break;  // turn 90° clockwise
        case 7:
          sx = w - 1 - oy;
          sy = h - 1 - ox;
          break;  // transversed
        case 8:
          sx = w - 1 - oy;
          sy = ox;
          break;  // turn 90° counter-clockwise
      }
      std::memcpy(destination + static_cast<size_t>(ox) * c,
                  image.row(sy) + static_cast<size_t>(sx) * c, static_cast<size_t>(c));
    }
  }
  return out;
}

}  // namespace inferlab::pipeline
