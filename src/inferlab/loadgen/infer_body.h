// What `inferlab load` sends: a KServe v2 (Open Inference Protocol) infer
// request, as JSON tensors or with Triton's binary_tensor_data extension
// (a JSON header of `Inference-Header-Content-Length` bytes, then each
// input's raw little-endian bytes), built once and sent unchanged; and the
// model metadata (`GET /v2/models/NAME`) that generated inputs are shaped by.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::loadgen {

enum class BodyFormat { kBinary, kJson };

// "binary" or "json"; throws Error(kInvalidArgument) naming the flag otherwise.
BodyFormat parse_body_format(const std::string& text);
std::string_view body_format_name(BodyFormat format);

// KServe's names: BOOL, UINT8..UINT64, INT8..INT64, FP16, FP32, FP64, BF16.
// Strings (BYTES) are refused with Error(kUnsupported).
std::string_view kserve_datatype(DataType dtype);
DataType dtype_from_kserve(std::string_view name);

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct InferBody {
  std::string bytes;
  // Binary: the JSON header's length (the Inference-Header-Content-Length
  // value); JSON: 0 (no such header is sent).
  size_t header_length = 0;
  std::string content_type;
  // The headers this body needs beyond Content-Type and Content-Length, as
  // "Name: value\r\n" lines (empty for JSON).
  std::string extra_headers() const;
};

// The request body for `inputs`, in their order. Binary bodies ask for
// binary outputs too (the request parameter "binary_data_output": true), so
// neither direction spends time on number text.
InferBody encode_infer_body(const NamedTensors& inputs, BodyFormat format);

// "/v2/models/NAME[/versions/V]" and the same + "/infer"; the name and the
// version are percent-encoded where they hold characters a path cannot.
std::string model_path(const std::string& name, const std::string& version);
std::string infer_path(const std::string& name, const std::string& version);

// The inputs an OIP model metadata reply declares ({"inputs": [{"name",
// "datatype", "shape"}]}), -1 dims as symbolic ones. Throws
// Error(kInvalidArgument) naming the field when the reply lacks them.
std::vector<model::ValueInfo> inputs_from_metadata(const nlohmann::json& metadata);

}  // namespace inferlab::loadgen
