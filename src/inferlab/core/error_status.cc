// Keep in step with docs/errors.md. The switches have no default, so a new
// ErrorCode without a row here is a compiler warning (-Wswitch) and a test
// failure (tests/core/error_status_test.cc).
#include "inferlab/core/error_status.h"

namespace inferlab {

namespace {

// google.rpc.Code numbers, as gRPC spells them.
enum GrpcCode {
  kGrpcCancelled = 1,
  kGrpcUnknown = 2,
  kGrpcInvalidArgument = 3,
  kGrpcDeadlineExceeded = 4,
  kGrpcNotFound = 5,
  kGrpcResourceExhausted = 8,
  kGrpcOutOfRange = 11,
  kGrpcUnimplemented = 12,
  kGrpcInternal = 13,
  kGrpcUnavailable = 14,
};

}  // namespace

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kOutOfRange:
      return 400;  // Bad Request: the request is wrong
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kLimitExceeded:
      return 413;  // Content Too Large
    case ErrorCode::kCancelled:
      return 499;  // Client Closed Request (nginx; KServe servers use it too)
    case ErrorCode::kInvalidModel:
    case ErrorCode::kIo:
    case ErrorCode::kRuntime:
      return 500;  // the server's model or machine is at fault, not the request
    case ErrorCode::kUnsupported:
      return 501;
    case ErrorCode::kUnavailable:
      return 503;
    case ErrorCode::kDeadlineExceeded:
      return 504;
  }
  return 500;
}

int grpc_status_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return kGrpcInvalidArgument;
    case ErrorCode::kOutOfRange:
      return kGrpcOutOfRange;
    case ErrorCode::kNotFound:
      return kGrpcNotFound;
    case ErrorCode::kLimitExceeded:
      return kGrpcResourceExhausted;
    case ErrorCode::kCancelled:
      return kGrpcCancelled;
    case ErrorCode::kInvalidModel:
    case ErrorCode::kIo:
    case ErrorCode::kRuntime:
      return kGrpcInternal;
    case ErrorCode::kUnsupported:
      return kGrpcUnimplemented;
    case ErrorCode::kUnavailable:
      return kGrpcUnavailable;
    case ErrorCode::kDeadlineExceeded:
      return kGrpcDeadlineExceeded;
  }
  return kGrpcUnknown;
}

}  // namespace inferlab
