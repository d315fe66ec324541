// The transformer fusions on the BERT-like zoo encoder: level 2 against
// level 0 at FP32 tolerance, with the fused operators present and the node
// count reduced.
#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::testing {
namespace {

struct EncoderRun {
  Tensor output;
  int64_t nodes = 0;
  std::map<std::string, int64_t> ops;
};

EncoderRun run_encoder(const std::string& path, int level) {
  runtime::SessionOptions options;
  options.opt_level = level;
  runtime::Session session = runtime::Session::load(path, options);
  const Tensor input = read_npy(path.substr(0, path.size() - 5) + ".input.npy");
  auto outputs = session.run({{session.inputs()[0].name, input}});
  EncoderRun run{outputs.at(session.outputs()[0].name), 0, {}};
  for (const model::Node& node : session.model().graph->nodes) {
    ++run.nodes;
    ++run.ops[node.domain.empty() ? node.op_type : node.domain + "::" + node.op_type];
  }
  return run;
}

void check_encoder(const std::string& name) {
  const std::string path = cache_dir() + "/models/" + name + ".onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "missing " << path;
  const EncoderRun base = run_encoder(path, 0);
  const EncoderRun fused = run_encoder(path, 2);
  const double error = relative_error(fused.output, base.output);
  std::printf("%s: nodes %lld -> %lld, max error %.3g\n", name.c_str(),
              static_cast<long long>(base.nodes), static_cast<long long>(fused.nodes), error);
  for (const auto& [op, n] : fused.ops)
    std::printf("  %s x%lld\n", op.c_str(), static_cast<long long>(n));
  EXPECT_LE(error, 1e-4);
  EXPECT_LT(fused.nodes, base.nodes);
  EXPECT_EQ(
      fused.ops.count("com.microsoft::Attention") ? fused.ops.at("com.microsoft::Attention") : 0,
      12);
  const int64_t skip = fused.ops.count("com.microsoft::SkipLayerNormalization")
                           ? fused.ops.at("com.microsoft::SkipLayerNormalization")
                           : 0;
  EXPECT_EQ(skip, 24);
  EXPECT_EQ(fused.ops.count("Erf"), 0u);
  EXPECT_EQ(fused.ops.count("Softmax"), 0u);
}

TEST(TransformerZoo, EncoderOp17AtLevel2MatchesLevel0) { check_encoder("encoder_op17"); }
TEST(TransformerZoo, EncoderOp13AtLevel2MatchesLevel0) { check_encoder("encoder_op13"); }

}  // namespace
}  // namespace inferlab::testing
