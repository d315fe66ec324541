// Encoding a KServe v2 inference response: JSON outputs, or Triton's binary
// tensor data after the JSON (Inference-Header-Content-Length framing).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inferlab/core/tensor.h"

namespace inferlab::serve {

struct ResponseOutput {
  std::string name;
  Tensor tensor;
  bool binary = false;  // as binary data after the JSON, not in "data"
};

struct EncodedResponse {
  std::string body;
  // The JSON part's length when binary data follows it (the value of the
  // Inference-Header-Content-Length header); absent for a JSON-only body.
  std::optional<size_t> header_length;
};

// `id` is echoed when not empty. Throws kUnsupported for an output type the
// protocol has no datatype for (strings).
EncodedResponse encode_infer_response(std::string_view model_name, std::string_view model_version,
                                      std::string_view id,
                                      const std::vector<ResponseOutput>& outputs);

// The protocol's error body: {"error": "<message>"}.
std::string encode_error(std::string_view message);

}  // namespace inferlab::serve
