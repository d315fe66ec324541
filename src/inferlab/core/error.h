// The one error mechanism of InferLab: every failure the user can cause is an
// inferlab::Error with a code and a message naming the model, node, input or
// flag at fault. The CLI turns it into exit status 1; a server into an HTTP or
// gRPC status (core/error_status.h, docs/errors.md). Internal invariants use
// assert, not Error.
#pragma once

#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace inferlab {

enum class ErrorCode {
  kInvalidArgument,   // a caller-supplied value is wrong (input, option, flag)
  kInvalidModel,      // the model file is malformed or inconsistent
  kUnsupported,       // valid, but InferLab does not implement it
  kIo,                // a file could not be opened, read or written
  kOutOfRange,        // an index or size from the data is out of bounds
  kLimitExceeded,     // a configured limit (e.g. max_tensor_bytes) would be passed
  kRuntime,           // a failure while running a model
  kNotFound,          // a named thing (model file, backend, input file) does not exist
  kUnavailable,       // a backend or worker cannot serve now (not loadable, worker died)
  kDeadlineExceeded,  // a call ran past its time limit (e.g. call_timeout_s)
  kCancelled,         // the caller gave up on the call (client cancel, shutdown)
};

// Every code, in declaration order: tables keyed by ErrorCode (wire names,
// protocol statuses) are checked against it in tests.
inline constexpr ErrorCode kAllErrorCodes[] = {
    ErrorCode::kInvalidArgument, ErrorCode::kInvalidModel,
    ErrorCode::kUnsupported,     ErrorCode::kIo,
    ErrorCode::kOutOfRange,      ErrorCode::kLimitExceeded,
    ErrorCode::kRuntime,         ErrorCode::kNotFound,
    ErrorCode::kUnavailable,     ErrorCode::kDeadlineExceeded,
    ErrorCode::kCancelled,
};
static_assert(static_cast<size_t>(ErrorCode::kCancelled) + 1 == std::size(kAllErrorCodes),
              "kAllErrorCodes must list every ErrorCode");

// "invalid argument", "not found", ... (words, for messages).
const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message)
      : std::runtime_error(std::move(message)), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Throws an Error whose message is formatted with fmt.
template <typename... Args>
[[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(code, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace inferlab
