// libFuzzer target: arbitrary bytes through the server's request decoding
// (KServe v2 JSON tensors, Triton's binary framing) and, when a request
// decodes, back out through the response encoder; the same bytes as a model
// config in text and JSON form, and as a URL path (routes, model names and
// versions: what reaches the repository). Any inferlab::Error is an accepted outcome;
// a crash, another exception, a leak or a sanitizer report is a bug.
//
// Input layout: byte 0 picks the framing (bit 0 clear: JSON only; set:
// bytes 1-2 give the Inference-Header-Content-Length, clipped to the body)
// and whether the body comes with an owner (bit 1: binary tensors may then
// be views into it, as the server decodes large bodies, and outlive the
// caller's reference), the rest is the body.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "inferlab/core/error.h"
#include "inferlab/serve/protocol/infer_request.h"
#include "inferlab/serve/protocol/infer_response.h"
#include "inferlab/serve/repository/model_config.h"
#include "inferlab/serve/rest/route.h"

namespace {

void decode_and_echo(std::string_view body, std::optional<size_t> header_length, bool owned) {
  inferlab::serve::RequestLimits limits;
  limits.max_elements = int64_t{1} << 20;  // a hostile shape cannot exhaust memory
  std::shared_ptr<void> owner;
  if (owned) {
    auto copy = std::shared_ptr<char[]>(new char[body.size() + 1]);
    std::memcpy(copy.get(), body.data(), body.size());
    body = std::string_view(copy.get(), body.size());
    owner = std::move(copy);
  }
  try {
    const inferlab::serve::InferRequest request =
        inferlab::serve::decode_infer_request(body, header_length, limits, owner);
    owner.reset();  // views keep the body alive on their own
    std::vector<inferlab::serve::ResponseOutput> outputs;
    for (const auto& [name, tensor] : request.inputs) {
      outputs.push_back({name, tensor, inferlab::serve::wants_binary(request, name)});
    }
    inferlab::serve::encode_infer_response("fuzz", "1", request.id, outputs);
  } catch (const inferlab::Error&) {
  }
}

void parse_config(std::string_view text) {
  try {
    inferlab::serve::validate_model_config(
        inferlab::serve::parse_model_config_text(text, "fuzz.pbtxt"), "fuzz", "fuzz.pbtxt");
  } catch (const inferlab::Error&) {
  }
  try {
    inferlab::serve::validate_model_config(
        inferlab::serve::parse_model_config_json(text, "fuzz.json"), "fuzz", "fuzz.json");
  } catch (const inferlab::Error&) {
  }
}

void parse_target(std::string_view target) {
  try {
    inferlab::serve::parse_route(target);
  } catch (const inferlab::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 3, size - 3);
  std::optional<size_t> header_length;
  if ((data[0] & 1) != 0) header_length = std::min<size_t>(data[1] | (data[2] << 8), body.size());
  decode_and_echo(body, header_length, (data[0] & 2) != 0);
  parse_config(body);
  parse_target(body);
  return 0;
}
