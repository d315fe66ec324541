// libFuzzer target: arbitrary bytes through the whole load path (parse ->
// ONNX checker -> import -> validation -> shape inference -> plan). Any
// inferlab::Error is an accepted outcome; a crash, leak or sanitizer report
// is a bug. Limits are small so a hostile input cannot exhaust memory.
#include <cstddef>
#include <cstdint>

#include "inferlab/core/error.h"
#include "inferlab/runtime/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  inferlab::runtime::SessionOptions options;
  options.threads = 1;
  options.max_tensor_bytes = int64_t{64} << 20;
  try {
    inferlab::runtime::Session::load_bytes(data, size, options);
  } catch (const inferlab::Error&) {
    // Rejected with a message: the expected outcome for bad input.
  }
  return 0;
}
