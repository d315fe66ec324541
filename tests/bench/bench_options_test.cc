// Sweeps: one variable at a time unless --cross; the points they make.
#include "inferlab/bench/bench_options.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

TEST(BenchSweep, OneVariableGivesOnePointPerValue) {
  BenchOptions options;
  options.batch = {1, 4, 16};
  const std::vector<BenchPoint> points = sweep_points(options);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(*points[2].batch, 16);
  EXPECT_EQ(swept_variables(options), std::vector<std::string>{"batch"});
}

TEST(BenchSweep, TwoVariablesNeedCross) {
  BenchOptions options;
  options.batch = {1, 4};
  options.threads = {1, 2};
  EXPECT_THROW(sweep_points(options), Error);
  options.cross = true;
  EXPECT_EQ(sweep_points(options).size(), 4u);
}

TEST(BenchSweep, SeveralShapesOfOneInputArePoints) {
  BenchOptions options;
  options.shapes["x"] = {{1, 3, 224, 224}, {1, 3, 320, 320}};
  const std::vector<BenchPoint> points = sweep_points(options);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[1].shapes.at("x"), (Shape{1, 3, 320, 320}));
}

}  // namespace
}  // namespace inferlab::bench
