// oneDNN's instruction-set limit. It is per process and must be set before
// oneDNN's first primitive, so the checks that need a fresh process run in
// ctest entries of their own (CMakeLists.txt: dnnl_kernels_avx2 runs the
// oneDNN kernel tests under DNNL_MAX_CPU_ISA=AVX2; dnnl_session_max_isa runs
// the session test below first in its process); in the main unit run they
// skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "inferlab/core/npy.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::kernels {
namespace {

bool env_is(const char* name, const std::string& value) {
  const char* set = std::getenv(name);
  return set != nullptr && value == set;
}

TEST(DnnlIsa, OneDnnRunsAtTheLimitTheProcessWasGiven) {
  if (!env_is("DNNL_MAX_CPU_ISA", "AVX2")) GTEST_SKIP() << "runs under DNNL_MAX_CPU_ISA=AVX2";
  EXPECT_EQ(dnnl_backend::dnnl_isa_name(), "avx2");
}

TEST(DnnlIsa, TheFirstSessionsMaxIsaLimitsOneDnn) {
  if (!env_is("INFERLAB_FRESH_PROCESS", "1")) GTEST_SKIP() << "needs oneDNN untouched";
  const std::string model = testing::cache_dir() + "/models/mobilenet_v2_op17";
  runtime::SessionOptions options;
  options.threads = 1;
  options.max_isa = cpu::Isa::kAvx2;
  runtime::Session session = runtime::Session::load(model + ".onnx", options);
  const Tensor input = read_npy(model + ".input.npy");
  const runtime::TensorMap outputs = session.run({{session.inputs().at(0).name, input}});
  EXPECT_EQ(dnnl_backend::dnnl_isa_name(), "avx2");
  EXPECT_LE(testing::relative_error(outputs.at(session.outputs().at(0).name),
                                    read_npy(model + ".output.npy")),
            1e-4);
  // Too late for another limit: the first one stays.
  EXPECT_FALSE(dnnl_backend::limit_dnnl_isa(cpu::Isa::kPortable));
  EXPECT_EQ(dnnl_backend::dnnl_isa_name(), "avx2");
}

}  // namespace
}  // namespace inferlab::kernels
