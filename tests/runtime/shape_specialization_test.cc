// A model with a dynamic batch, loaded without fixed shapes, is optimized
// again for each input-shape signature it runs with: fused and laid out
// channels-last like a static model, with the reference outputs, through
// run(inputs) and bind()/run() alike.
#include "inferlab/runtime/shape_specialization.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "inferlab/core/npy.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

std::string dynamic_model() { return testing::cache_dir() + "/models/mobilenet_v2_op17_dyn"; }

int64_t count(const model::Model& model, const std::string& op_type) {
  int64_t n = 0;
  for (const model::Node& node : model.graph->nodes) n += node.op_type == op_type ? 1 : 0;
  return n;
}

TEST(ShapeSpecialization, EachBatchSizeRunsAGraphOptimizedForItsShapes) {
  const std::string base = dynamic_model();
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  SessionOptions options;
  options.threads = 1;
  Session session = Session::load(base + ".onnx", options);
  EXPECT_FALSE(session.inputs().at(0).is_static());
  const std::string input = session.inputs().at(0).name;
  const std::string output = session.outputs().at(0).name;
  // Before any run: the generic graph, which cannot fuse without shapes.
  EXPECT_EQ(session.shape_specializations(), 0u);
  EXPECT_EQ(count(session.model(), "FusedConv"), 0);

  const TensorMap one = session.run({{input, read_npy(base + ".input.npy")}});
  EXPECT_LE(testing::relative_error(one.at(output), read_npy(base + ".output.npy")), 1e-4);
  EXPECT_EQ(session.shape_specializations(), 1u);
  EXPECT_GT(count(session.model(), "FusedConv"), 40);
  EXPECT_EQ(count(session.model(), "NhwcGlobalAveragePool"), 1);

  const TensorMap two = session.run({{input, read_npy(base + ".batch2.input.npy")}});
  EXPECT_LE(testing::relative_error(two.at(output), read_npy(base + ".batch2.output.npy")), 1e-4);
  EXPECT_EQ(session.shape_specializations(), 2u);
  session.run({{input, read_npy(base + ".input.npy")}});
  EXPECT_EQ(session.shape_specializations(), 2u) << "batch 1 was specialized twice";
}

TEST(ShapeSpecialization, BindAndRunUseTheSpecializedSession) {
  const std::string base = dynamic_model();
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  SessionOptions options;
  options.threads = 1;
  Session session = Session::load(base + ".onnx", options);
  const std::string input = session.inputs().at(0).name;
  const std::string output = session.outputs().at(0).name;
  const Tensor x = read_npy(base + ".batch2.input.npy");
  const TensorMap expected = session.run({{input, x}});
  Tensor y(DataType::kFloat32, expected.at(output).shape());
  session.bind({{input, x}}, {{output, y}});
  session.run();
  session.run();
  EXPECT_TRUE(y.equals(expected.at(output)));
  EXPECT_TRUE(session.bound_outputs().at(output).equals(expected.at(output)));
  EXPECT_EQ(session.shape_specializations(), 1u);
}

TEST(ShapeSpecialization, BelowLevelTwoOrWithFixedShapesNothingIsSpecialized) {
  const std::string base = dynamic_model();
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  SessionOptions basic;
  basic.opt_level = 1;
  Session level1 = Session::load(base + ".onnx", basic);
  level1.run({{level1.inputs().at(0).name, read_npy(base + ".input.npy")}});
  EXPECT_EQ(level1.shape_specializations(), 0u);
  SessionOptions fixed;
  fixed.input_shapes = {{"input", {1, 3, 224, 224}}};
  Session static_session = Session::load(base + ".onnx", fixed);
  static_session.run({{static_session.inputs().at(0).name, read_npy(base + ".input.npy")}});
  EXPECT_EQ(static_session.shape_specializations(), 0u);
  EXPECT_GT(count(static_session.model(), "FusedConv"), 40);
}

}  // namespace
}  // namespace inferlab::runtime
