#include "inferlab/pipeline/image/image.h"

namespace inferlab::pipeline {

Image to_gray(const Image& image) {
  if (image.channels == 1) return image;
  Image gray;
  gray.width = image.width;
  gray.height = image.height;
  gray.channels = 1;
  const size_t pixels = static_cast<size_t>(image.width) * image.height;
  gray.pixels.resize(pixels);
  for (size_t i = 0; i < pixels; ++i) {
    const uint8_t* rgb = &image.pixels[i * image.channels];
    gray.pixels[i] =
        static_cast<uint8_t>((rgb[0] * 299 + rgb[1] * 587 + rgb[2] * 114 + 500) / 1000);
  }
  return gray;
}

}  // namespace inferlab::pipeline
