// The node cache of prepacked oneDNN weights: a layout asked for after the
// original was released is packed from the copy; the copies a plan file
// keeps restore a cache that hands out the same bytes without a reorder.
#include "inferlab/kernels/dnnl/packed_weights.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>

#include "test_util.h"

namespace inferlab::kernels {
namespace {

using inferlab::testing::random_float_tensor;
using tag = dnnl::memory::format_tag;

dnnl::memory::desc layout_of(const Tensor& w, tag format) {
  return dnnl::memory::desc(dnnl_backend::plain_desc(w.shape()).dims(),
                            dnnl::memory::data_type::f32, format);
}

// A MatMul node's prepare step, reading weights `w` (or a stand-in).
class PackedWeightsTest : public ::testing::Test {
 protected:
  PrepareContext context(const Tensor& w) {
    return PrepareContext(node_, {ValueFacts{}, ValueFacts{DataType::kFloat32, w.shape(), &w}}, {},
                          cache_);
  }

  const Tensor w_ = random_float_tensor({32, 48}, 11);
  const dnnl::memory::desc plain_ = dnnl_backend::plain_desc(w_.shape());
  const std::string name_ = "node";
  const std::string op_type_ = "MatMul";
  const model::AttributeMap attributes_{};
  const NodeInfo node_{name_, op_type_, 17, attributes_};
  std::shared_ptr<KernelState> cache_;
};

TEST_F(PackedWeightsTest, ALayoutAskedForAfterReleaseIsPackedFromTheCopy) {
  PrepareContext first = context(w_);
  dnnl_backend::packed_weights(first, 1, plain_, layout_of(w_, tag::ba));
  EXPECT_TRUE(first.prepacked(1));
  EXPECT_FALSE(first.prepacked(0));

  const Tensor stand_in = Tensor::shape_only(DataType::kFloat32, w_.shape());
  PrepareContext later = context(stand_in);
  const std::shared_ptr<dnnl_backend::AlignedBytes> blocked =
      dnnl_backend::packed_weights(later, 1, plain_, layout_of(w_, tag::AB16b16a));
  const dnnl_backend::AlignedBytes expected =
      dnnl_backend::reorder_to(plain_, w_.raw_data(), layout_of(w_, tag::AB16b16a));
  ASSERT_EQ(blocked->size(), expected.size());
  EXPECT_EQ(std::memcmp(blocked->data(), expected.data(), expected.size()), 0);
  EXPECT_TRUE(later.prepacked(1));
  const auto& packed = dynamic_cast<const PackedConstants&>(*cache_);
  EXPECT_TRUE(packed.unpack(1).equals(w_));
  EXPECT_EQ(packed.packed_here(), 2);
  EXPECT_EQ(packed.copy_count(), 2u);
}

TEST_F(PackedWeightsTest, RestoredCopiesAreHandedOutAsTheyAreWithoutAReorder) {
  PrepareContext first = context(w_);
  const auto original =
      dnnl_backend::packed_weights(first, 1, plain_, layout_of(w_, tag::AB16b16a));
  const std::vector<PackedCopy> copies = dynamic_cast<const PackedConstants&>(*cache_).copies();
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(dynamic_cast<const PackedConstants&>(*cache_).copy_count(), 1u);
  EXPECT_EQ(copies[0].input, 1u);
  EXPECT_EQ(copies[0].shape, w_.shape());

  // What a plan file hands back: the same descriptions, the bytes elsewhere.
  std::vector<PackedCopy> saved = copies;
  auto bytes = std::make_shared<std::vector<char>>(copies[0].size);
  std::memcpy(bytes->data(), copies[0].bytes.get(), copies[0].size);
  saved[0].bytes = std::shared_ptr<const void>(bytes, bytes->data());
  cache_ = std::make_shared<dnnl_backend::PackedWeightsCache>(saved);

  const Tensor stand_in = Tensor::shape_only(DataType::kFloat32, w_.shape());
  PrepareContext later = context(stand_in);
  const auto restored =
      dnnl_backend::packed_weights(later, 1, plain_, layout_of(w_, tag::AB16b16a));
  EXPECT_EQ(restored->data(), bytes->data());  // borrowed, not copied or reordered
  const auto& packed = dynamic_cast<const PackedConstants&>(*cache_);
  EXPECT_EQ(packed.packed_here(), 0);
  EXPECT_TRUE(packed.holds(1));
  EXPECT_FALSE(packed.holds(0));
  EXPECT_TRUE(packed.unpack(1).equals(w_));
  EXPECT_EQ(std::memcmp(restored->data(), original->data(), original->size()), 0);
}

TEST_F(PackedWeightsTest, ACopyThatDisagreesWithItsLayoutsIsRefused) {
  PrepareContext first = context(w_);
  dnnl_backend::packed_weights(first, 1, plain_, layout_of(w_, tag::ba));
  std::vector<PackedCopy> copies = dynamic_cast<const PackedConstants&>(*cache_).copies();
  copies[0].size -= 4;
  EXPECT_THROW(dnnl_backend::PackedWeightsCache{copies}, Error);
  copies = dynamic_cast<const PackedConstants&>(*cache_).copies();
  copies[0].layout.pop_back();
  EXPECT_THROW(dnnl_backend::PackedWeightsCache{copies}, Error);
  copies = dynamic_cast<const PackedConstants&>(*cache_).copies();
  copies[0].shape = Shape{32, 47};  // not what the original's layout describes
  EXPECT_THROW(dnnl_backend::PackedWeightsCache{copies}, Error);
}

// oneDNN's Winograd weights for a 3x3 convolution of `w`, or none where
// this process's oneDNN has no Winograd convolution (below AVX-512).
std::optional<dnnl::memory::desc> winograd_weights(const Tensor& w) {
  const int64_t channels = w.shape()[0];
  const dnnl::memory::desc activations({1, channels, 8, 8}, dnnl::memory::data_type::f32, tag::any);
  try {
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, activations,
        layout_of(w, tag::any), activations, {1, 1}, {1, 1}, {1, 1});
    return dnnl::convolution_forward::primitive_desc(desc, dnnl_backend::cpu_engine())
        .weights_desc();
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// A Winograd copy holds transformed values that do not reorder back: the
// original must stay, until a layout that does reorder back is packed.
TEST_F(PackedWeightsTest, AWinogradCopyLeavesTheOriginalInPlace) {
  const Tensor w = random_float_tensor({32, 32, 3, 3}, 12);
  const std::optional<dnnl::memory::desc> winograd = winograd_weights(w);
  if (!winograd) GTEST_SKIP() << "no Winograd convolution in this process's oneDNN";
  const dnnl::memory::desc plain = dnnl_backend::plain_desc(w.shape());
  PrepareContext first = context(w);
  dnnl_backend::packed_weights(first, 1, plain, *winograd);
  EXPECT_FALSE(first.prepacked(1));
  const auto& packed = dynamic_cast<const PackedConstants&>(*cache_);
  EXPECT_FALSE(packed.holds(1));
  EXPECT_THROW(packed.unpack(1), Error);

  PrepareContext second = context(w);
  dnnl_backend::packed_weights(second, 1, plain, layout_of(w, tag::OIhw16i16o));
  EXPECT_TRUE(second.prepacked(1));
  EXPECT_TRUE(packed.holds(1));
  EXPECT_TRUE(packed.unpack(1).equals(w));
}

}  // namespace
}  // namespace inferlab::kernels
