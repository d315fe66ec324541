// CPU feature detection through the compiler's cpuid wrapper, done once.
#include "inferlab/kernels/cpu/isa.h"

#include <algorithm>

#include "inferlab/core/error.h"

namespace inferlab::kernels::cpu {

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return "portable";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "portable";
}

Isa parse_isa(const std::string& name) {
  if (name == "auto" || name == "avx512") return Isa::kAvx512;
  if (name == "avx2") return Isa::kAvx2;
  if (name == "portable") return Isa::kPortable;
  fail(ErrorCode::kInvalidArgument, "unknown ISA '{}' (expected auto, avx512, avx2 or portable)",
       name);
}

Isa detected_isa() {
  static const Isa isa = [] {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
      return Isa::kAvx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
    return Isa::kPortable;
  }();
  return isa;
}

Isa effective_isa(Isa max_isa) { return std::min(max_isa, detected_isa()); }

}  // namespace inferlab::kernels::cpu
