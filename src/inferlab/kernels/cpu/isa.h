// Which instruction sets the vectorized kernels may use. The binary is built
// for baseline x86-64 (no -march); AVX2 and AVX-512 code lives in functions
// compiled for that target and is only called after detected_isa() says the
// CPU has it. `max_isa` (SessionOptions) caps the choice so that every path
// can be run, and tested, on one AVX-512 machine.
#pragma once

#include <string>

namespace inferlab::kernels::cpu {

// Ordered: a higher value is a superset of the lower ones.
enum class Isa { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// "portable", "avx2" or "avx512".
const char* isa_name(Isa isa);
// "auto" (the best there is: kAvx512), "avx512", "avx2" or "portable";
// throws Error(kInvalidArgument) naming the bad value otherwise.
Isa parse_isa(const std::string& name);
// The best ISA this CPU runs: kAvx512 needs avx512f+bw+dq+vl, kAvx2 needs
// avx2+fma (detected once).
Isa detected_isa();
// The lower of `max_isa` and detected_isa(): what actually runs.
Isa effective_isa(Isa max_isa);

}  // namespace inferlab::kernels::cpu
