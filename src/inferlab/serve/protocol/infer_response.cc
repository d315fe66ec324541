#include "inferlab/serve/protocol/infer_response.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "inferlab/core/error.h"
#include "inferlab/serve/protocol/datatype.h"
#include "inferlab/serve/protocol/json_tensor.h"

namespace inferlab::serve {

using nlohmann::json;

EncodedResponse encode_infer_response(std::string_view model_name, std::string_view model_version,
                                      std::string_view id,
                                      const std::vector<ResponseOutput>& outputs) {
  json root = {{"model_name", model_name}, {"model_version", model_version}};
  if (!id.empty()) root["id"] = id;
  json& encoded = root["outputs"] = json::array();
  size_t binary_bytes = 0;
  for (const ResponseOutput& output : outputs) {
    const std::string_view datatype = kserve_datatype(output.tensor.dtype());
    if (datatype.empty()) {
      fail(ErrorCode::kUnsupported, "output '{}': type {} has no protocol datatype", output.name,
           dtype_name(output.tensor.dtype()));
    }
    json entry = {{"name", output.name},
                  {"datatype", datatype},
                  {"shape", std::vector<int64_t>(output.tensor.shape().begin(),
                                                 output.tensor.shape().end())}};
    if (output.binary) {
      entry["parameters"] = {{"binary_data_size", output.tensor.nbytes()}};
      binary_bytes += output.tensor.nbytes();
    } else {
      entry["data"] = tensor_to_json(output.tensor);
    }
    encoded.push_back(std::move(entry));
  }
  EncodedResponse response;
  response.body = root.dump(-1, ' ', false, json::error_handler_t::replace);
  if (binary_bytes == 0 && std::none_of(outputs.begin(), outputs.end(),
                                        [](const ResponseOutput& o) { return o.binary; })) {
    return response;
  }
  response.header_length = response.body.size();
  response.body.reserve(response.body.size() + binary_bytes);
  for (const ResponseOutput& output : outputs) {
    if (!output.binary) continue;
    response.body.append(static_cast<const char*>(output.tensor.raw_data()),
                         output.tensor.nbytes());
  }
  return response;
}

std::string encode_error(std::string_view message) {
  // Replacement of invalid UTF-8 (an input name echoed from a request)
  // rather than an exception while reporting another error.
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace inferlab::serve
