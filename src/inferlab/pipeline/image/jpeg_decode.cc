#include "inferlab/pipeline/image/jpeg_decode.h"

#include <turbojpeg.h>

#include <cstring>
#include <memory>

#include "inferlab/core/error.h"
#include "inferlab/pipeline/image/exif_orientation.h"
#include "inferlab/pipeline/image/jpeg_segments.h"

namespace inferlab::pipeline {

namespace {

struct HandleCloser {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using Handle = std::unique_ptr<void, HandleCloser>;

// The largest DCT reduction (1/2, 1/4 or 1/8) that keeps the image at
// least as large as the target in both directions; 1/1 without a target.
tjscalingfactor scaling_for(int width, int height, const DecodeOptions& options) {
  tjscalingfactor best{1, 1};
  if (options.target_width <= 0 || options.target_height <= 0) return best;
  int count = 0;
  const tjscalingfactor* factors = tjGetScalingFactors(&count);
  for (int i = 0; factors != nullptr && i < count; ++i) {
    const tjscalingfactor factor = factors[i];
    if (factor.num != 1 || (factor.denom != 2 && factor.denom != 4 && factor.denom != 8)) continue;
    if (TJSCALED(width, factor) < options.target_width ||
        TJSCALED(height, factor) < options.target_height) {
      continue;
    }
    if (factor.denom > best.denom) best = factor;
  }
  return best;
}

// Photoshop and most writers of CMYK JPEGs store the inks inverted and say
// so with an Adobe APP14 segment (PIL reads them the same way).
bool has_adobe_segment(std::span<const uint8_t> jpeg) {
  return !find_jpeg_segment(jpeg, 0xEE, [](std::span<const uint8_t> payload) {
            return payload.size() >= 5 && std::memcmp(payload.data(), "Adobe", 5) == 0;
          }).empty();
}

// CMYK to RGB as PIL converts: each channel (255 - ink) * (255 - black) / 255.
void cmyk_to_rgb(const std::vector<uint8_t>& cmyk, bool inverted, Image& image) {
  const size_t pixels = static_cast<size_t>(image.width) * image.height;
  for (size_t i = 0; i < pixels; ++i) {
    const uint8_t* in = &cmyk[4 * i];
    const int black = inverted ? in[3] : 255 - in[3];
    for (int c = 0; c < 3; ++c) {
      const int paper = inverted ? in[c] : 255 - in[c];
      image.pixels[3 * i + c] = static_cast<uint8_t>((paper * black + 127) / 255);
    }
  }
}

}  // namespace

Image decode_jpeg(std::span<const uint8_t> bytes, const DecodeOptions& options,
                  const std::string& name) {
  Handle handle(tjInitDecompress());
  if (!handle) fail(ErrorCode::kRuntime, "{}: cannot start a JPEG decoder", name);
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), bytes.data(), static_cast<unsigned long>(bytes.size()),
                          &width, &height, &subsampling, &colorspace) != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: truncated or corrupt JPEG header ({})", name,
         tjGetErrorStr2(handle.get()));
  }
  if (static_cast<uint64_t>(width) * static_cast<uint64_t>(height) > options.max_pixels) {
    fail(ErrorCode::kLimitExceeded, "{}: the image is {}x{}, more than {} pixels", name, width,
         height, options.max_pixels);
  }
  const tjscalingfactor scaling = scaling_for(width, height, options);
  Image image;
  image.width = TJSCALED(width, scaling);
  image.height = TJSCALED(height, scaling);
  image.channels = options.gray ? 1 : 3;
  const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  const int format = cmyk ? TJPF_CMYK : (options.gray ? TJPF_GRAY : TJPF_RGB);
  const int format_channels = cmyk ? 4 : image.channels;
  std::vector<uint8_t> decoded(static_cast<size_t>(image.width) * image.height * format_channels);
  // A truncated or corrupt file is only a warning to libjpeg (it pads the
  // rest with gray): refuse it instead of handing on a broken image.
  if (tjDecompress2(handle.get(), bytes.data(), static_cast<unsigned long>(bytes.size()),
                    decoded.data(), image.width, 0, image.height, format,
                    TJFLAG_STOPONWARNING) != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: truncated or corrupt JPEG data ({})", name,
         tjGetErrorStr2(handle.get()));
  }
  if (cmyk) {
    Image rgb = image;
    rgb.channels = 3;
    rgb.pixels.resize(static_cast<size_t>(image.width) * image.height * 3);
    cmyk_to_rgb(decoded, has_adobe_segment(bytes), rgb);
    image = options.gray ? to_gray(rgb) : std::move(rgb);
  } else {
    image.pixels = std::move(decoded);
  }
  if (!options.apply_exif_orientation) return image;
  return apply_orientation(image, jpeg_exif_orientation(bytes));
}

}  // namespace inferlab::pipeline
