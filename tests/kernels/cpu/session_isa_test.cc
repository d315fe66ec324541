// A session's max_isa reaches the kernels: the zoo's encoder (Softmax,
// SkipLayerNormalization, Gelu) and mobilenet_v2 (Clip, Add, fused epilogues)
// give the same outputs with the portable kernels and the best the CPU has.
#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::runtime {
namespace {

Tensor run_with(const std::string& base, kernels::cpu::Isa isa) {
  SessionOptions options;
  options.max_isa = isa;
  Session session = Session::load(base + ".onnx", options);
  const Tensor input = read_npy(base + ".input.npy");
  TensorMap outputs = session.run({{session.inputs()[0].name, input}});
  return outputs.at(session.outputs()[0].name);
}

void expect_same_outputs_on_every_isa(const std::string& name) {
  const std::string base = testing::cache_dir() + "/models/" + name;
  if (!std::filesystem::exists(base + ".input.npy")) GTEST_SKIP() << "missing zoo model " << name;
  const Tensor portable = run_with(base, kernels::cpu::Isa::kPortable);
  const Tensor best = run_with(base, kernels::cpu::Isa::kAvx512);
  const Tensor expected = read_npy(base + ".output.npy");
  EXPECT_LE(testing::relative_error(best, portable), 1e-4) << name;
  EXPECT_LE(testing::relative_error(best, expected), 1e-3) << name;
}

TEST(SessionIsa, EncoderGivesTheSameOutputsWithPortableAndBestKernels) {
  expect_same_outputs_on_every_isa("encoder_op17");
}

TEST(SessionIsa, MobilenetGivesTheSameOutputsWithPortableAndBestKernels) {
  expect_same_outputs_on_every_isa("mobilenet_v2_op17");
}

}  // namespace
}  // namespace inferlab::runtime
