// LRN against torch.nn.functional.local_response_norm.
#include "kernels/nn_test_data.h"

namespace inferlab::testing {
namespace {

TEST(Lrn, MatchesTorch) {
  NodeRun lrn{"LRN",
              13,
              {{"size", int_attr(3)},
               {"alpha", float_attr(1e-2f)},
               {"beta", float_attr(0.75f)},
               {"bias", float_attr(2.0f)}}};
  const auto y = lrn.run({pattern({1, 5, 2, 2}, 0, 13)});
  expect_values(y[0], {1, 5, 2, 2},
                {-0.593444862,
                 -0.0743225415,
                 -0.519527414,
                 0,
                 -0.44494497,
                 0.0743094803,
                 -0.371025918,
                 0.148592849,
                 -0.296977019,
                 0.222654606,
                 -0.22282403,
                 0.296901747,
                 -0.148592849,
                 -0.593340838,
                 -0.0743094803,
                 -0.519365433,
                 0,
                 -0.445083647,
                 0.0743225415,
                 -0.37109101});
}

TEST(Lrn, RejectsMissingSize) {
  NodeRun lrn{"LRN", 13, {}};
  expect_error(
      [&] {
        lrn.run({pattern({1, 2, 2, 2})});
      },
      ErrorCode::kInvalidModel, {"LRN node 'node'", "size"});
}

}  // namespace
}  // namespace inferlab::testing
