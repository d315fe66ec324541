// ErrorCode: kAllErrorCodes lists every code once, in declaration order, and
// every code has its own readable name.
#include "inferlab/core/error.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace inferlab {
namespace {

TEST(ErrorCode, AllErrorCodesListsEveryCodeInOrder) {
  int expected = 0;
  for (ErrorCode code : kAllErrorCodes) EXPECT_EQ(static_cast<int>(code), expected++);
  EXPECT_EQ(static_cast<int>(ErrorCode::kCancelled) + 1, expected);
}

TEST(ErrorCode, EveryCodeHasItsOwnName) {
  std::set<std::string> names;
  for (ErrorCode code : kAllErrorCodes) {
    const std::string name = error_code_name(code);
    EXPECT_NE(name, "error") << static_cast<int>(code) << " has no name";
    EXPECT_TRUE(names.insert(name).second) << "'" << name << "' names two codes";
  }
}

TEST(ErrorCode, NewCodesReadAsWords) {
  EXPECT_STREQ(error_code_name(ErrorCode::kNotFound), "not found");
  EXPECT_STREQ(error_code_name(ErrorCode::kUnavailable), "unavailable");
  EXPECT_STREQ(error_code_name(ErrorCode::kDeadlineExceeded), "deadline exceeded");
  EXPECT_STREQ(error_code_name(ErrorCode::kCancelled), "cancelled");
}

}  // namespace
}  // namespace inferlab
