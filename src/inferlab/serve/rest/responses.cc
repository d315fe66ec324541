#include "inferlab/serve/rest/responses.h"

#include "inferlab/core/error_status.h"
#include "inferlab/serve/protocol/infer_response.h"

namespace inferlab::serve {

HttpResponse json_response(int status, const nlohmann::json& body) {
  return HttpResponse{status,
                      "application/json",
                      {},
                      body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

HttpResponse error_response(int status, const std::string& message) {
  return HttpResponse{status, "application/json", {}, encode_error(message)};
}

HttpResponse error_response(const Error& error) {
  return error_response(http_status(error.code()), error.what());
}

}  // namespace inferlab::serve
