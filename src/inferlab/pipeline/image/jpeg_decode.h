// JPEG through TurboJPEG: gray, RGB and CMYK/YCCK files; DCT-scaled decoding
// when the target is at least twice smaller; EXIF orientation applied.
#pragma once

#include <span>
#include <string>

#include "inferlab/pipeline/image/decode.h"

namespace inferlab::pipeline {

Image decode_jpeg(std::span<const uint8_t> bytes, const DecodeOptions& options,
                  const std::string& name);

}  // namespace inferlab::pipeline
