// InstanceNormalization against torch.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(InstanceNormalization, MatchesTorch) {
  NodeRun in{"InstanceNormalization", 7, {}};
  const auto y = in.run({pattern({2, 3, 5}, 0, 13), pattern({3}, 2), pattern({3}, 6)});
  expect_values(y[0], {2, 3, 5},
                {0.577713215, -1.03172915, 0.347792878,  -1.26164949, 0.11787254,   0.68631209,
                 0.456391752, 0.724632146, 0.494711809,  0.762952203, -0.884932002, 0.934592014,
                 -0.625,      -2.18459201, -0.365067998, 0.577713215, -1.03172915,  0.347792878,
                 -1.26164949, 0.11787254,  0.68631209,   0.456391752, 0.724632146,  0.494711809,
                 0.762952203, -0.13450328, -1.97386598,  0.17205717,  -1.66730553,  0.47861762});
}

TEST(InstanceNormalization, RejectsScaleOfWrongLength) {
  NodeRun in{"InstanceNormalization", 7, {}};
  expect_error(
      [&] {
        in.run({pattern({1, 3, 4}), pattern({2}), pattern({3})});
      },
      ErrorCode::kInvalidArgument, {"InstanceNormalization node 'node'"});
}

}  // namespace
}  // namespace inferlab::testing
