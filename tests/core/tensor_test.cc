// Tensor::view: a tensor inside a buffer someone else allocated, kept alive
// by sharing that buffer's owner (how the server's decoded inputs point into
// a request's body instead of copying it).
#include "inferlab/core/tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace inferlab {
namespace {

TEST(TensorViewTest, KeepsItsOwnersBufferAliveAfterTheOwnerIsDropped) {
  auto buffer = std::shared_ptr<float[]>(new float[8]{0, 1, 2, 3, 4, 5, 6, 7});
  std::weak_ptr<float[]> watch = buffer;
  Tensor view = Tensor::view(DataType::kFloat32, {2, 2}, buffer, buffer.get() + 4);
  buffer.reset();
  ASSERT_FALSE(watch.expired());
  EXPECT_TRUE(view.owns_memory());
  EXPECT_EQ(view.data<float>()[0], 4.0f);
  EXPECT_EQ(view.data<float>()[3], 7.0f);
  Tensor copy = view;  // copies share the owner too
  view = Tensor();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(copy.data<float>()[1], 5.0f);
  copy = Tensor();
  EXPECT_TRUE(watch.expired());
}

TEST(TensorViewTest, RefusesMemoryMisalignedForItsElementType) {
  auto bytes = std::shared_ptr<char[]>(new char[64]);
  try {
    Tensor::view(DataType::kFloat32, {4}, bytes, bytes.get() + 2);
    FAIL() << "a float view at an odd address was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("aligned"), std::string::npos) << error.what();
  }
  EXPECT_NO_THROW(Tensor::view(DataType::kUint8, {4}, bytes, bytes.get() + 3));
}

TEST(TensorViewTest, CloneCopiesOutOfTheOwnersBuffer) {
  auto buffer = std::shared_ptr<int64_t[]>(new int64_t[2]{7, 9});
  Tensor view = Tensor::view(DataType::kInt64, {2}, buffer, buffer.get());
  Tensor copy = view.clone();
  buffer[0] = 1;
  EXPECT_EQ(view.data<int64_t>()[0], 1);
  EXPECT_EQ(copy.data<int64_t>()[0], 7);
}

}  // namespace
}  // namespace inferlab
