// How each ErrorCode reads in the protocols a server speaks: an HTTP status
// (KServe v2 REST) and a gRPC status code (KServe v2 gRPC). The table, with
// the reason for each row, is docs/errors.md; these functions are the same
// table in code, so a server never decides a status on its own.
#pragma once

#include "inferlab/core/error.h"

namespace inferlab {

// 400, 404, 413, 499, 500, 501, 503 or 504.
int http_status(ErrorCode code);

// The numeric gRPC status code (grpc::StatusCode / google.rpc.Code values:
// 1 CANCELLED, 3 INVALID_ARGUMENT, 4 DEADLINE_EXCEEDED, 5 NOT_FOUND,
// 8 RESOURCE_EXHAUSTED, 11 OUT_OF_RANGE, 12 UNIMPLEMENTED, 13 INTERNAL,
// 14 UNAVAILABLE); no gRPC dependency. Never 0 (OK).
int grpc_status_code(ErrorCode code);

}  // namespace inferlab
