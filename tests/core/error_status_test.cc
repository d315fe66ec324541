// The protocol statuses of every ErrorCode: the table of docs/errors.md,
// checked row by row, and no code left on a fallback.
#include "inferlab/core/error_status.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

namespace inferlab {
namespace {

// docs/errors.md: {HTTP status, gRPC status code}.
const std::map<ErrorCode, std::pair<int, int>> kDocumentedStatuses = {
    {ErrorCode::kInvalidArgument, {400, 3}}, {ErrorCode::kInvalidModel, {500, 13}},
    {ErrorCode::kUnsupported, {501, 12}},    {ErrorCode::kIo, {500, 13}},
    {ErrorCode::kOutOfRange, {400, 11}},     {ErrorCode::kLimitExceeded, {413, 8}},
    {ErrorCode::kRuntime, {500, 13}},        {ErrorCode::kNotFound, {404, 5}},
    {ErrorCode::kUnavailable, {503, 14}},    {ErrorCode::kDeadlineExceeded, {504, 4}},
    {ErrorCode::kCancelled, {499, 1}},
};

TEST(ErrorStatus, EveryCodeHasADocumentedRow) {
  for (ErrorCode code : kAllErrorCodes) {
    EXPECT_EQ(kDocumentedStatuses.count(code), 1u)
        << error_code_name(code) << " is missing from docs/errors.md's table";
  }
  EXPECT_EQ(kDocumentedStatuses.size(), std::size(kAllErrorCodes));
}

TEST(ErrorStatus, EveryCodeMapsToItsDocumentedHttpStatus) {
  for (ErrorCode code : kAllErrorCodes) {
    const int status = http_status(code);
    EXPECT_GE(status, 400) << error_code_name(code);
    EXPECT_LE(status, 599) << error_code_name(code);
    EXPECT_EQ(status, kDocumentedStatuses.at(code).first) << error_code_name(code);
  }
}

TEST(ErrorStatus, EveryCodeMapsToItsDocumentedGrpcStatus) {
  for (ErrorCode code : kAllErrorCodes) {
    const int status = grpc_status_code(code);
    EXPECT_GE(status, 1) << error_code_name(code) << " must not map to OK";
    EXPECT_LE(status, 16) << error_code_name(code);
    EXPECT_NE(status, 2) << error_code_name(code) << " falls back to UNKNOWN";
    EXPECT_EQ(status, kDocumentedStatuses.at(code).second) << error_code_name(code);
  }
}

TEST(ErrorStatus, ClientSideCodesAreFourHundreds) {
  for (ErrorCode code : {ErrorCode::kInvalidArgument, ErrorCode::kOutOfRange, ErrorCode::kNotFound,
                         ErrorCode::kLimitExceeded, ErrorCode::kCancelled})
    EXPECT_LT(http_status(code), 500) << error_code_name(code);
}

}  // namespace
}  // namespace inferlab
