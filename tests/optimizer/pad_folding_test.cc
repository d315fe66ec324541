// pad_folding on hand-built graphs: a zero Pad folds into Conv, into an
// AveragePool that counts padding, and into a MaxPool after Relu; it stays
// wherever folding would change results.
#include <gtest/gtest.h>

#include "basic_pass_test_util.h"
#include "inferlab/optimizer/basic_passes.h"
#include "test_util.h"

namespace inferlab::optimizer {
namespace {

using basic_test::int_attr;
using basic_test::ints_attr;
using basic_test::string_attr;
using basic_test::TestModel;

// x[1,2,5,5] -> (Relu) -> Pad(pads) -> `consumer` -> y.
TestModel make_pad_model(const std::string& consumer, std::vector<int64_t> pads,
                         bool relu_first = false) {
  TestModel test;
  test.input("x", {1, 2, 5, 5});
  test.output("y");
  test.constant("pads", Tensor::from_vector<int64_t>(pads, {8}));
  std::string source = "x";
  if (relu_first) {
    test.node("relu", "Relu", {"x"}, {"r"});
    source = "r";
  }
  test.node("pad", "Pad", {source, "pads"}, {"padded"});
  if (consumer == "Conv") {
    test.constant("w", testing::random_float_tensor({3, 2, 3, 3}, 7));
    test.node("conv", "Conv", {"padded", "w"}, {"y"},
              {{"kernel_shape", ints_attr({3, 3})}, {"pads", ints_attr({1, 0, 0, 1})}});
  } else {
    test.node("pool", consumer, {"padded"}, {"y"}, {{"kernel_shape", ints_attr({3, 3})}});
  }
  return test;
}

// Runs pad_folding and checks the outputs did not change.
PassStats fold_and_compare(TestModel& test) {
  const model::Model original = basic_test::deep_copy(test.model);
  auto pass = make_pad_folding_pass();
  const PassStats stats = basic_test::run_pass(*pass, test.model);
  const Tensor x = testing::random_float_tensor({1, 2, 5, 5}, 3);
  const Tensor before = basic_test::execute(original, {{"x", x}}).at("y");
  const Tensor after = basic_test::execute(test.model, {{"x", x}}).at("y");
  EXPECT_EQ(after.shape(), before.shape());
  EXPECT_LE(testing::relative_error(after, before), 1e-6);
  return stats;
}

TEST(PadFolding, FoldsAZeroPadIntoConv) {
  TestModel test = make_pad_model("Conv", {0, 0, 1, 2, 0, 0, 1, 0});
  EXPECT_EQ(fold_and_compare(test).changes.at("folded Pad into Conv"), 1);
  ASSERT_EQ(test.graph().nodes.size(), 1u);
  EXPECT_EQ(test.graph().nodes[0].inputs[0], "x");
  EXPECT_EQ(test.graph().nodes[0].attributes.at("pads").ints, (std::vector<int64_t>{2, 2, 1, 1}));
}

TEST(PadFolding, DoesNotFoldANonZeroPadValue) {
  TestModel test = make_pad_model("Conv", {0, 0, 1, 1, 0, 0, 1, 1});
  test.constant("one", Tensor::scalar<float>(1.0f));
  test.graph().nodes[0].inputs.push_back("one");
  EXPECT_FALSE(fold_and_compare(test).changed());
}

TEST(PadFolding, DoesNotFoldReflectPadding) {
  TestModel test = make_pad_model("Conv", {0, 0, 1, 1, 0, 0, 1, 1});
  test.graph().nodes[0].attributes["mode"] = string_attr("reflect");
  EXPECT_FALSE(fold_and_compare(test).changed());
}

TEST(PadFolding, DoesNotFoldPaddingOfChannelsOrNegativePads) {
  TestModel channels = make_pad_model("Conv", {0, 1, 0, 0, 0, 0, 0, 0});
  channels.constant("w", testing::random_float_tensor({3, 3, 3, 3}, 7));
  EXPECT_FALSE(fold_and_compare(channels).changed());
  TestModel negative = make_pad_model("Conv", {0, 0, -1, 1, 0, 0, 1, 1});
  EXPECT_FALSE(fold_and_compare(negative).changed());
}

TEST(PadFolding, DoesNotFoldWhenThePaddedValueHasAnotherReader) {
  TestModel test = make_pad_model("Conv", {0, 0, 1, 1, 0, 0, 1, 1});
  test.output("padded");
  EXPECT_FALSE(fold_and_compare(test).changed());
}

TEST(PadFolding, FoldsIntoAveragePoolOnlyWhenItCountsPadding) {
  TestModel counting = make_pad_model("AveragePool", {0, 0, 1, 1, 0, 0, 1, 1});
  counting.graph().nodes[1].attributes["count_include_pad"] = int_attr(1);
  EXPECT_EQ(fold_and_compare(counting).changes.at("folded Pad into AveragePool"), 1);
  TestModel excluding = make_pad_model("AveragePool", {0, 0, 1, 1, 0, 0, 1, 1});
  EXPECT_FALSE(fold_and_compare(excluding).changed());
}

TEST(PadFolding, FoldsIntoMaxPoolOnlyAfterRelu) {
  TestModel after_relu = make_pad_model("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, true);
  EXPECT_EQ(fold_and_compare(after_relu).changes.at("folded Pad into MaxPool"), 1);
  TestModel signed_input = make_pad_model("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1});
  EXPECT_FALSE(fold_and_compare(signed_input).changed());
  TestModel too_wide = make_pad_model("MaxPool", {0, 0, 3, 3, 0, 0, 0, 0}, true);
  EXPECT_FALSE(fold_and_compare(too_wide).changed());
}

}  // namespace
}  // namespace inferlab::optimizer
