// The one shape rule of run, bench and profile: --shape first (checked
// against the declared dims), then the declared dims with the leading
// symbolic dim as the batch (--batch, else 1); other symbolic dims are errors
// that name the input and the --shape to give.
#include "inferlab/inputs/input_shapes.h"

#include <gtest/gtest.h>

#include <functional>

#include "inferlab/core/error.h"
#include "input_test_support.h"

namespace inferlab::inputs {
namespace {

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    return error.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(InputShapes, StaticDimsAreUsedAsDeclared) {
  EXPECT_EQ(resolve_input_shape(declared("x", DataType::kFloat32, {2, 3}), {}), (Shape{2, 3}));
}

TEST(InputShapes, SymbolicLeadingDimIsOneOrTheBatch) {
  const model::ValueInfo x = declared("x", DataType::kFloat32, {-1, 3}, {"batch"});
  EXPECT_EQ(resolve_input_shape(x, {}), (Shape{1, 3}));
  EXPECT_EQ(resolve_input_shape(x, {}, 4), (Shape{4, 3}));
}

TEST(InputShapes, GivenShapeWinsOverTheBatch) {
  const model::ValueInfo x = declared("x", DataType::kFloat32, {-1, 3, -1}, {"n", "len"});
  EXPECT_EQ(resolve_input_shape(x, {{"x", {2, 3, 7}}}, 4), (Shape{2, 3, 7}));
}

TEST(InputShapes, BatchOnAStaticLeadingDimIsAnErrorNamingTheInput) {
  const model::ValueInfo x = declared("input", DataType::kFloat32, {1, 3});
  EXPECT_EQ(error_of([&] { resolve_input_shape(x, {}, 4); }),
            "--batch 4 asked of input 'input', whose batch dim is fixed at 1 in the model "
            "(float[1, 3])");
  EXPECT_EQ(resolve_input_shape(x, {}, 1), (Shape{1, 3}));
}

TEST(InputShapes, OtherSymbolicDimsNameTheShapeToGive) {
  const model::ValueInfo x =
      declared("x", DataType::kFloat32, {-1, 3, -1, -1}, {"batch", "height", "width"});
  EXPECT_EQ(error_of([&] { resolve_input_shape(x, {}); }),
            "input 'x': dimensions 2 ('height') and 3 ('width') are symbolic; give the full shape "
            "with --shape x=1,3,<height>,<width>");
  const model::ValueInfo z = declared("z", DataType::kFloat32, {2, -1});
  EXPECT_EQ(error_of([&] { resolve_input_shape(z, {}, 2); }),
            "input 'z': dimension 1 is symbolic; give the full shape with --shape z=2,<dim1>");
}

TEST(InputShapes, UndeclaredShapeNeedsTheShapeFlag) {
  model::ValueInfo x = declared("x", DataType::kFloat32, {});
  x.has_shape = false;
  EXPECT_EQ(error_of([&] { resolve_input_shape(x, {}); }),
            "input 'x' has no declared shape; give it with --shape x=DIMS");
  EXPECT_EQ(resolve_input_shape(x, {{"x", {5}}}), (Shape{5}));
}

TEST(InputShapes, GivenShapeMustFitTheDeclaredDims) {
  const model::ValueInfo x = declared("x", DataType::kFloat32, {-1, 3}, {"batch"});
  EXPECT_EQ(error_of([&] {
              resolve_input_shape(x, {{"x", {1, 3, 4}}});
            }),
            "--shape: input 'x' is float[batch, 3] (rank 2), but the given shape [1, 3, 4] has "
            "rank 3");
  EXPECT_EQ(error_of([&] {
              resolve_input_shape(x, {{"x", {1, 4}}});
            }),
            "--shape: input 'x': dimension 1 is fixed at 3 in the model (float[batch, 3]), but the "
            "given shape [1, 4] sets it to 4");
}

TEST(InputShapes, ShapeForANameThatIsNotAnInputIsAnError) {
  const std::vector<model::ValueInfo> inputs = {declared("x", DataType::kFloat32, {2})};
  EXPECT_EQ(error_of([&] {
              resolve_input_shapes(inputs, {{"y", {2}}});
            }),
            "--shape: a shape is given for 'y', which is not an input (inputs: x (float[2]))");
}

TEST(InputShapes, ResolvesEveryInput) {
  const std::vector<model::ValueInfo> inputs = {
      declared("ids", DataType::kInt64, {-1, 16}, {"batch"}),
      declared("mask", DataType::kBool, {-1, 16}, {"batch"})};
  const auto shapes = resolve_input_shapes(inputs, {{"mask", {2, 16}}}, 2);
  EXPECT_EQ(shapes.at("ids"), (Shape{2, 16}));
  EXPECT_EQ(shapes.at("mask"), (Shape{2, 16}));
}

}  // namespace
}  // namespace inferlab::inputs
