// Point labels name only the variables a run set.
#include "inferlab/report/report_common.h"

#include <gtest/gtest.h>

namespace inferlab::report {
namespace {

TEST(ReportPointLabel, LeavesOutVariablesTheRunDidNotSet) {
  const nlohmann::json entry = {{"point", {{"batch", nullptr}, {"threads", 2}}}};
  EXPECT_EQ(point_label(entry), "threads=2");
  EXPECT_EQ(point_label({{"point", {{"batch", nullptr}}}}), "default");
}

}  // namespace
}  // namespace inferlab::report
