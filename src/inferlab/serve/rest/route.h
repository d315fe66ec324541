// The KServe v2 REST paths (with Triton's extensions) an HTTP target maps
// to, and the method each takes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace inferlab::serve {

enum class RouteKind {
  kServerMetadata,    // GET  /v2
  kHealthLive,        // GET  /v2/health/live
  kHealthReady,       // GET  /v2/health/ready
  kModelMetadata,     // GET  /v2/models/M[/versions/V]
  kModelReady,        // GET  /v2/models/M[/versions/V]/ready
  kModelConfig,       // GET  /v2/models/M[/versions/V]/config
  kModelStats,        // GET  /v2/models[/M[/versions/V]]/stats
  kInfer,             // POST /v2/models/M[/versions/V]/infer
  kRepositoryIndex,   // POST /v2/repository/index
  kRepositoryLoad,    // POST /v2/repository/models/M/load
  kRepositoryUnload,  // POST /v2/repository/models/M/unload
  kUnknown,
};

struct Route {
  RouteKind kind = RouteKind::kUnknown;
  std::string model;    // percent-decoded and checked (check_model_name)
  int64_t version = 0;  // 0: not in the path
};

// Parses the path of `target` (a query string is ignored). A path that is
// none of the above is kUnknown; a bad model name or version in a known
// path throws Error(kInvalidArgument) naming it.
Route parse_route(std::string_view target);

// "GET" or "POST".
const char* route_method(RouteKind kind);

}  // namespace inferlab::serve
