// Sweeps: one variable at a time unless --cross; the points they make.
#include "inferlab/bench/bench_options.h"

#include <gtest/gtest.h>

#include "inferlab/bench/bench_inputs.h"
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

TEST(BenchInputs, BatchOnAStaticBatchModelIsAClearError) {
  model::ValueInfo input;
  input.name = "input";
  input.dtype = DataType::kFloat32;
  input.has_shape = true;
  input.dims = {model::Dim::fixed(1), model::Dim::fixed(3)};
  try {
    resolve_input_shapes({input}, {}, int64_t{4});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("fixed at 1"), std::string::npos) << error.what();
  }
  input.dims[0] = model::Dim::symbolic("batch");
  EXPECT_EQ(resolve_input_shapes({input}, {}, int64_t{4}).at("input"), (Shape{4, 3}));
}

TEST(BenchInputs, RandomInputsUseTheManifestRangeAndAreReproducible) {
  model::ValueInfo input;
  input.name = "ids";
  input.dtype = DataType::kInt64;
  input.has_shape = true;
  input.dims = {model::Dim::fixed(64)};
  backends::ModelSource source;
  source.inputs.push_back({input, std::make_pair(5.0, 8.0)});
  const auto first = random_inputs({input}, {{"ids", {64}}}, source, 3);
  const auto again = random_inputs({input}, {{"ids", {64}}}, source, 3);
  EXPECT_TRUE(first.at("ids").equals(again.at("ids")));
  for (int64_t value : first.at("ids").to_int64_vector()) {
    EXPECT_GE(value, 5);
    EXPECT_LT(value, 8);
  }
}

}  // namespace
}  // namespace inferlab::bench
