// Decoding a KServe v2 inference request body (the Open Inference
// Protocol's JSON, with Triton's binary_tensor_data extension) into
// InferLab tensors, under limits so that a hostile body gets a clear error
// instead of exhausting the server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/core/tensor.h"

namespace inferlab::serve {

// What one request may ask for. The HTTP layer bounds the body's bytes; these
// bound what the body describes.
struct RequestLimits {
  int max_json_depth = 16;                  // nested arrays in "data" count too
  size_t max_tensors = 256;                 // inputs, and requested outputs
  int64_t max_elements = int64_t{1} << 28;  // per tensor, after the shape product
  size_t max_name_bytes = 256;              // input, output and request id lengths
};

struct RequestedOutput {
  std::string name;
  std::optional<bool> binary_data;  // the output's "binary_data" parameter, if sent
};

struct InferRequest {
  std::string id;  // echoed in the response; empty when not sent
  std::map<std::string, Tensor> inputs;
  std::vector<RequestedOutput> outputs;  // empty: every output of the model
  bool binary_data_output = false;       // request parameter: outputs as binary by default
  std::optional<int64_t> priority;       // schedule_policy extension
  std::optional<int64_t> timeout_us;     // schedule_policy extension (microseconds)
  nlohmann::json parameters = nlohmann::json::object();  // every request parameter, as sent
};

// Decodes `body`. `header_length` is the Inference-Header-Content-Length
// header's value: the JSON is the body's first `header_length` bytes and
// the binary tensor data follows, in the order of the inputs that carry a
// "binary_data_size" parameter; without the header the body is JSON only.
// Throws Error (kInvalidArgument, kLimitExceeded, kUnsupported) naming the
// input, output or field at fault. With `body_owner` (what keeps `body`'s
// bytes alive), a binary tensor aligned for its elements is a view into the
// body, sharing the owner, instead of a copy.
InferRequest decode_infer_request(std::string_view body, std::optional<size_t> header_length,
                                  const RequestLimits& limits = {},
                                  const std::shared_ptr<void>& body_owner = nullptr);

// Whether output `name` goes back as binary data: its own parameter, else
// the request's binary_data_output.
bool wants_binary(const InferRequest& request, const std::string& name);

}  // namespace inferlab::serve
