#include "inferlab/core/error.h"

namespace inferlab {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kInvalidModel:
      return "invalid model";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kOutOfRange:
      return "out of range";
    case ErrorCode::kLimitExceeded:
      return "limit exceeded";
    case ErrorCode::kRuntime:
      return "runtime error";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kDeadlineExceeded:
      return "deadline exceeded";
    case ErrorCode::kCancelled:
      return "cancelled";
  }
  return "error";
}

}  // namespace inferlab
