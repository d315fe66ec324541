// HTTP answers the REST layer builds: JSON bodies, and errors as
// {"error": "..."} with the status of docs/errors.md's table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/core/error.h"
#include "inferlab/serve/http/http_server.h"

namespace inferlab::serve {

HttpResponse json_response(int status, const nlohmann::json& body);
HttpResponse error_response(int status, const std::string& message);
// The status of the error's code (core/error_status.h).
HttpResponse error_response(const Error& error);

}  // namespace inferlab::serve
