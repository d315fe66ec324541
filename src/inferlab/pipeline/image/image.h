// A decoded image: 8-bit samples, interleaved, rows top to bottom with no
// padding. One channel (gray) or three (RGB); a decoder drops alpha the way
// PIL's convert("RGB") does, so pixels match what Python pipelines feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace inferlab::pipeline {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;  // 1 or 3
  std::vector<uint8_t> pixels;

  size_t row_bytes() const { return static_cast<size_t>(width) * static_cast<size_t>(channels); }
  const uint8_t* row(int y) const { return pixels.data() + static_cast<size_t>(y) * row_bytes(); }
  uint8_t* row(int y) { return pixels.data() + static_cast<size_t>(y) * row_bytes(); }
};

// Luma by ITU-R 601-2 (L = 0.299 R + 0.587 G + 0.114 B, rounded), as PIL's
// convert("L"); a gray image comes back as it is.
Image to_gray(const Image& image);

}  // namespace inferlab::pipeline
