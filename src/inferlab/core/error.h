// The one error mechanism of InferLab: every failure the user can cause is an
// inferlab::Error with a code and a message naming the model, node, input or
// flag at fault. The CLI turns it into exit status 1; the server, later, into
// a protocol error. Internal invariants use assert, not Error.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace inferlab {

enum class ErrorCode {
  kInvalidArgument,  // a caller-supplied value is wrong (input, option, flag)
  kInvalidModel,     // the model file is malformed or inconsistent
  kUnsupported,      // valid, but InferLab does not implement it
  kIo,               // a file could not be opened, read or written
  kOutOfRange,       // an index or size from the data is out of bounds
  kLimitExceeded,    // a configured limit (e.g. max_tensor_bytes) would be passed
  kRuntime,          // a failure while running a model
};

const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
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
