// EXIF orientation (tag 0x0112) from a JPEG's APP1 segment, and turning an
// image upright by it. Cameras store pixels as the sensor saw them and say
// in the tag how to show them; PIL's ImageOps.exif_transpose does the same.
#pragma once

#include <cstdint>
#include <span>

#include "inferlab/pipeline/image/image.h"

namespace inferlab::pipeline {

// 1 (upright, also when absent or unreadable) to 8, as EXIF numbers them.
int jpeg_exif_orientation(std::span<const uint8_t> jpeg);

// The image as it should be shown for `orientation` (1..8; others: as is).
Image apply_orientation(const Image& image, int orientation);

}  // namespace inferlab::pipeline
