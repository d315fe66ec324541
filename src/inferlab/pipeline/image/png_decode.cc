#include "inferlab/pipeline/image/png_decode.h"

#include <spng.h>

#include <memory>

#include "inferlab/core/error.h"

namespace inferlab::pipeline {

namespace {

struct ContextCloser {
  void operator()(spng_ctx* context) const { spng_ctx_free(context); }
};
using Context = std::unique_ptr<spng_ctx, ContextCloser>;

// Ancillary chunks (text, ICC profiles) are kept in memory while decoding:
// bound them, so a file of huge text chunks cannot exhaust memory.
constexpr size_t kChunkLimit = size_t{16} << 20;
constexpr size_t kChunkCache = size_t{64} << 20;

}  // namespace

Image decode_png(std::span<const uint8_t> bytes, const DecodeOptions& options,
                 const std::string& name) {
  Context context(spng_ctx_new(0));
  if (!context) fail(ErrorCode::kRuntime, "{}: cannot start a PNG decoder", name);
  spng_set_chunk_limits(context.get(), kChunkLimit, kChunkCache);
  int rc = spng_set_png_buffer(context.get(), bytes.data(), bytes.size());
  spng_ihdr header{};
  if (rc == 0) rc = spng_get_ihdr(context.get(), &header);
  if (rc != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: truncated or corrupt PNG header ({})", name,
         spng_strerror(rc));
  }
  if (static_cast<uint64_t>(header.width) * header.height > options.max_pixels) {
    fail(ErrorCode::kLimitExceeded, "{}: the image is {}x{}, more than {} pixels", name,
         header.width, header.height, options.max_pixels);
  }
  // RGB8 whatever the file holds: palettes expanded, gray replicated, 16-bit
  // samples scaled to their high byte, alpha (and tRNS) dropped, as PIL's
  // convert("RGB") does for 8-bit files.
  size_t size = 0;
  rc = spng_decoded_image_size(context.get(), SPNG_FMT_RGB8, &size);
  Image image;
  image.width = static_cast<int>(header.width);
  image.height = static_cast<int>(header.height);
  image.channels = 3;
  if (rc == 0) {
    image.pixels.resize(size);
    rc = spng_decode_image(context.get(), image.pixels.data(), size, SPNG_FMT_RGB8, 0);
  }
  if (rc != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: truncated or corrupt PNG data ({})", name,
         spng_strerror(rc));
  }
  return options.gray ? to_gray(image) : image;
}

}  // namespace inferlab::pipeline
