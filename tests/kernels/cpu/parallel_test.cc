// parallel_ranges splits work over the OpenMP team without losing or
// repeating an index, and the fast kernels that use it give the reference's
// results when their work really is split (two threads, shapes well above
// the split threshold, odd sizes).
#include "inferlab/kernels/cpu/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "kernels/cpu/cpu_test_util.h"
#include "kernels/tensor_ops_harness.h"
#include "test_util.h"

namespace inferlab::kernels::cpu {
namespace {

TEST(ParallelRanges, EveryIndexOnceInAlignedRanges) {
  const TeamOf team(2);
  for (int64_t count : {0, 1, 31, 32, 65537, 1000003}) {
    for (int64_t align : {1, 16}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
      std::atomic<int> ranges{0};
      std::atomic<bool> misaligned{false};
      parallel_ranges(count, 1, align, [&](int64_t begin, int64_t end) {
        ++ranges;
        if (begin % align != 0) misaligned = true;
        for (int64_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
      });
      for (int64_t i = 0; i < count; ++i) {
        ASSERT_EQ(hits[static_cast<size_t>(i)].load(), 1) << "index " << i << " of " << count;
      }
      EXPECT_FALSE(misaligned) << count;
      // Only work worth two threads is split.
      EXPECT_EQ(ranges.load(), count >= 2 * kMinPerThread ? 2 : 1) << count;
    }
  }
}

TEST(ParallelRanges, OneThreadOrCheapItemsRunOnTheCaller) {
  const TeamOf team(1);
  int calls = 0;
  parallel_ranges(1 << 22, 1, 1, [&](int64_t begin, int64_t end) {
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1 << 22);
  });
  EXPECT_EQ(calls, 1);
}

Tensor floats(const Shape& shape, uint32_t seed) {
  return testing::make<float>(random_floats(shape_numel(shape), seed), shape);
}

Tensor run(const OpRegistry& registry, const std::string& domain, const std::string& type,
           int64_t opset, const std::vector<const Tensor*>& inputs) {
  const OpKernel* kernel = registry.find(domain, type, opset);
  EXPECT_NE(kernel, nullptr) << type;
  const std::string name = "node";
  const model::AttributeMap attributes;
  const NodeInfo node(name, type, opset, attributes);
  std::vector<Tensor> outputs(1);
  KernelContext context(node, inputs, outputs);
  kernel->compute(context);
  return outputs[0];
}

// Split on two threads, the fast kernel equals the reference (elementwise
// ops exactly; normalizations within 1e-5).
void expect_split_matches(const std::string& domain, const std::string& type, int64_t opset,
                          const std::vector<Tensor>& inputs, double tolerance) {
  const TeamOf team(2);
  std::vector<const Tensor*> pointers;
  for (const Tensor& input : inputs) pointers.push_back(&input);
  const Tensor expected = run(OpRegistry::reference(), domain, type, opset, pointers);
  for (Isa isa : supported_isas()) {
    const Tensor actual = run(OpRegistry::for_isa(isa), domain, type, opset, pointers);
    EXPECT_LE(testing::relative_error(actual, expected), tolerance)
        << type << " " << shape_to_string(inputs[0].shape()) << " " << isa_name(isa);
  }
}

TEST(ParallelKernels, SplitWorkMatchesTheReference) {
  expect_split_matches("", "Sigmoid", 13, {floats({3, 65537}, 1)}, 2e-6);
  expect_split_matches("", "Relu", 14, {floats({1, 100003}, 2)}, 0);
  expect_split_matches("", "Add", 14, {floats({1, 70001}, 3), floats({1, 70001}, 4)}, 0);
  // Broadcast split by rows (channels last) and by the broadcast axis.
  expect_split_matches("", "Mul", 14, {floats({1, 97, 97, 24}, 5), floats({24}, 6)}, 0);
  expect_split_matches("", "Sub", 14, {floats({40, 1, 1}, 7), floats({1, 40, 65, 67}, 8)}, 0);
  expect_split_matches("", "Div", 14, {floats({1, 40, 65, 67}, 21), floats({1}, 22)}, 0);
  expect_split_matches("", "LayerNormalization", 17,
                       {floats({300, 769}, 9), floats({769}, 10), floats({769}, 11)}, 1e-5);
  expect_split_matches("com.microsoft", "SkipLayerNormalization", 1,
                       {floats({1, 200, 768}, 12), floats({1, 200, 768}, 13), floats({768}, 14)},
                       1e-5);
  expect_split_matches("com.microsoft", "SkipLayerNormalization", 1,
                       {floats({1, 200, 768}, 15), floats({200, 768}, 16), floats({768}, 17)},
                       1e-5);
  expect_split_matches("com.microsoft", "BiasGelu", 1, {floats({257, 771}, 18), floats({771}, 19)},
                       2e-6);
}

TEST(ParallelKernels, SplitBatchNormalizationMatchesTheReference) {
  const Tensor positive_var = testing::make<float>(random_floats(24, 26, 0.1f, 2.0f), {24});
  expect_split_matches("", "BatchNormalization", 15,
                       {floats({2, 24, 61, 63}, 23), floats({24}, 24), floats({24}, 25),
                        floats({24}, 27), positive_var},
                       1e-5);
  // Empty, small (not split) and rank 2 (no spatial axes).
  expect_split_matches(
      "", "BatchNormalization", 15,
      {floats({0, 24, 5}, 32), floats({24}, 33), floats({24}, 34), floats({24}, 35), positive_var},
      0);
  expect_split_matches(
      "", "BatchNormalization", 15,
      {floats({3, 24}, 28), floats({24}, 29), floats({24}, 30), floats({24}, 31), positive_var},
      1e-5);
}

// Nearest Resize by whole factors, split at the first axis with more than
// one index: channels (NCHW), rows (NHWC), or the batch.
TEST(ParallelKernels, SplitResizeMatchesTheReferenceExactly) {
  for (const auto& [shape, factors] :
       std::vector<std::pair<Shape, std::vector<float>>>{{{1, 24, 81, 83}, {1, 1, 2, 2}},
                                                         {{1, 81, 83, 24}, {1, 2, 2, 1}},
                                                         {{3, 8, 65, 67}, {1, 1, 2, 3}}}) {
    const Tensor x = floats(shape, 20);
    const Tensor scales = testing::make<float>(factors, {static_cast<int64_t>(factors.size())});
    const TeamOf team(2);
    const OpKernel* reference = OpRegistry::reference().find("", "Resize", 13);
    const OpKernel* fast = OpRegistry::for_isa(detected_isa()).find("", "Resize", 13);
    ASSERT_NE(reference, nullptr);
    ASSERT_NE(fast, nullptr);
    const std::string name = "node";
    const model::AttributeMap attributes = {
        {"coordinate_transformation_mode", testing::string_attr("asymmetric")},
        {"nearest_mode", testing::string_attr("floor")}};
    const std::string op_type = "Resize";  // NodeInfo keeps a reference
    const NodeInfo node(name, op_type, 13, attributes);
    std::vector<Tensor> expected(1);
    std::vector<Tensor> actual(1);
    KernelContext reference_context(node, {&x, nullptr, &scales}, expected);
    KernelContext fast_context(node, {&x, nullptr, &scales}, actual);
    reference->compute(reference_context);
    fast->compute(fast_context);
    ASSERT_EQ(actual[0].shape(), expected[0].shape());
    EXPECT_TRUE(actual[0].equals(expected[0])) << shape_to_string(shape);
  }
}

}  // namespace
}  // namespace inferlab::kernels::cpu
