// parse_route: every KServe v2 path, versions, percent-encoded names, and
// names that try to leave the repository.
#include "inferlab/serve/rest/route.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::serve {
namespace {

TEST(Route, EveryEndpoint) {
  EXPECT_EQ(parse_route("/v2").kind, RouteKind::kServerMetadata);
  EXPECT_EQ(parse_route("/v2/health/live").kind, RouteKind::kHealthLive);
  EXPECT_EQ(parse_route("/v2/health/ready?verbose=1").kind, RouteKind::kHealthReady);
  EXPECT_EQ(parse_route("/v2/models/stats").kind, RouteKind::kModelStats);
  EXPECT_EQ(parse_route("/v2/repository/index").kind, RouteKind::kRepositoryIndex);
  const Route infer = parse_route("/v2/models/resnet50/versions/3/infer");
  EXPECT_EQ(infer.kind, RouteKind::kInfer);
  EXPECT_EQ(infer.model, "resnet50");
  EXPECT_EQ(infer.version, 3);
  EXPECT_EQ(parse_route("/v2/models/m").kind, RouteKind::kModelMetadata);
  EXPECT_EQ(parse_route("/v2/models/m/versions/2").kind, RouteKind::kModelMetadata);
  EXPECT_EQ(parse_route("/v2/models/m/ready").kind, RouteKind::kModelReady);
  EXPECT_EQ(parse_route("/v2/models/m/config").kind, RouteKind::kModelConfig);
  EXPECT_EQ(parse_route("/v2/models/m/versions/1/stats").kind, RouteKind::kModelStats);
  const Route load = parse_route("/v2/repository/models/m/load");
  EXPECT_EQ(load.kind, RouteKind::kRepositoryLoad);
  EXPECT_EQ(load.model, "m");
  EXPECT_EQ(parse_route("/v2/repository/models/m/unload").kind, RouteKind::kRepositoryUnload);
  EXPECT_STREQ(route_method(RouteKind::kInfer), "POST");
  EXPECT_STREQ(route_method(RouteKind::kHealthReady), "GET");
}

TEST(Route, UnknownPathsAreUnknown) {
  for (const char* target : {"/", "/v1/models/m", "/v2/health", "/v2/models/m/versions/1/x",
                             "/v2/models/m/infer/more", "/v2/repository/models/m"}) {
    EXPECT_EQ(parse_route(target).kind, RouteKind::kUnknown) << target;
  }
}

TEST(Route, PercentEncodedNamesAreDecodedThenChecked) {
  EXPECT_EQ(parse_route("/v2/models/my%2Dmodel/ready").model, "my-model");
  for (const char* target : {"/v2/models/%2E%2E/infer", "/v2/models/a%2Fb/infer",
                             "/v2/models/%zz/infer", "/v2/repository/models/../load"}) {
    try {
      parse_route(target);
      ADD_FAILURE() << target << " was accepted";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument) << target;
    }
  }
}

TEST(Route, VersionsAreNumbersFromOne) {
  for (const char* target :
       {"/v2/models/m/versions/0/infer", "/v2/models/m/versions/-1/infer",
        "/v2/models/m/versions/x/infer", "/v2/models/m/versions/99999999999999999999/infer"}) {
    EXPECT_THROW(parse_route(target), Error) << target;
  }
}

}  // namespace
}  // namespace inferlab::serve
