// ISA names, parsing and the effective-ISA rule.
#include "inferlab/kernels/cpu/isa.h"

#include <gtest/gtest.h>

#include "inferlab/core/error.h"

namespace inferlab::kernels::cpu {
namespace {

TEST(Isa, ParsesEveryNameAndAutoMeansTheBest) {
  EXPECT_EQ(parse_isa("auto"), Isa::kAvx512);
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512})
    EXPECT_EQ(parse_isa(isa_name(isa)), isa);
}

TEST(Isa, RejectsAnUnknownNameNamingIt) {
  try {
    parse_isa("sse9");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("sse9"), std::string::npos) << error.what();
  }
}

TEST(Isa, EffectiveIsaIsTheLowerOfMaxAndDetected) {
  EXPECT_EQ(effective_isa(Isa::kPortable), Isa::kPortable);
  EXPECT_EQ(effective_isa(Isa::kAvx512), detected_isa());
  EXPECT_LE(effective_isa(Isa::kAvx2), Isa::kAvx2);
}

}  // namespace
}  // namespace inferlab::kernels::cpu
