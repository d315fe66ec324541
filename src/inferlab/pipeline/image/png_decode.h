// PNG through libspng: gray, palette, RGB, with or without alpha, 1 to 16
// bits per sample; CRC errors and truncation refused.
#pragma once

#include <span>
#include <string>

#include "inferlab/pipeline/image/decode.h"

namespace inferlab::pipeline {

Image decode_png(std::span<const uint8_t> bytes, const DecodeOptions& options,
                 const std::string& name);

}  // namespace inferlab::pipeline
