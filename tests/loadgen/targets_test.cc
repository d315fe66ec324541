// samples_per_request: a dynamic first dimension is the batch; a fixed one
// belongs to the sample (the serving measurements' [1000]-vector Add is one
// sample per request, not a thousand).
#include "inferlab/loadgen/targets.h"

#include <gtest/gtest.h>

namespace inferlab::loadgen {
namespace {

model::ValueInfo declared(std::vector<model::Dim> dims) {
  model::ValueInfo info;
  info.name = "x";
  info.dtype = DataType::kFloat32;
  info.has_shape = true;
  info.dims = std::move(dims);
  return info;
}

TEST(SamplesPerRequest, ADynamicFirstDimensionIsTheBatch) {
  const NamedTensors inputs = {{"x", Tensor(DataType::kFloat32, Shape{4, 3})}};
  EXPECT_EQ(samples_per_request({declared({model::Dim::symbolic("batch"), model::Dim::fixed(3)})},
                                inputs),
            4);
  EXPECT_EQ(samples_per_request({declared({model::Dim::fixed(4), model::Dim::fixed(3)})}, inputs),
            1);
  EXPECT_EQ(samples_per_request({}, inputs), 4);  // nothing declared: the first dim
  EXPECT_EQ(samples_per_request({}, {}), 1);
}

}  // namespace
}  // namespace inferlab::loadgen
