// LayerNormalization (opset 17) against torch, with Mean and InvStdDev outputs.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(LayerNormalization, MatchesTorchOverTrailingDimsWithStatistics) {
  NodeRun ln{"LayerNormalization", 17, {{"axis", int_attr(1)}}};
  const auto out = ln.run({pattern({2, 3, 4}, 0, 13), pattern({3, 4}, 2), pattern({3, 4}, 6)}, 3);
  expect_values(out[0], {2, 3, 4},
                {0.905468951,  0.65709636,  -1.90885439,  0.121614561,  -1.64192719,  -0.606445396,
                 0.557421842,  -1.52708351, 0.439192719,  0.0878907924, 0.128385439,  1.45273448,
                 -0.358628107, 0.425848471, -0.190487573, 0.57588432,   -0.547382889, 0.508663956,
                 1.00346558,   0.224187378, 0.21205784,   -1.20088432,  -0.796606116, 0.820685947});
  expect_values(out[1], {2, 1, 1}, {-0.25, -0.3125});
  expect_values(out[2], {2, 1, 1}, {2.05416702, 2.31739961});
}

TEST(LayerNormalization, BroadcastsScaleAndOmitsBias) {
  NodeRun ln{"LayerNormalization", 17, {{"epsilon", float_attr(0.0f)}}};
  const auto out = ln.run({make<float>({1, 3, 5, 7}, {2, 2}), make<float>({2}, {1}), std::nullopt});
  expect_values(out[0], {2, 2}, {-2, 2, -2, 2});
}

TEST(LayerNormalization, RejectsScaleThatDoesNotBroadcast) {
  NodeRun ln{"LayerNormalization", 17, {}};
  expect_error(
      [&] {
        ln.run({pattern({2, 4}), pattern({3}), std::nullopt});
      },
      ErrorCode::kInvalidArgument, {"LayerNormalization node 'node'", "Scale"});
}

}  // namespace
}  // namespace inferlab::testing
