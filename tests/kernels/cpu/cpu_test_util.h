// Shared by the kernels/cpu tests: the ISAs this CPU runs (every test loops
// over them), a seeded random float vector, and a fixed OpenMP team size.
#pragma once

#include <omp.h>

#include <cstdint>
#include <random>
#include <vector>

#include "inferlab/kernels/cpu/isa.h"

namespace inferlab::kernels::cpu {

inline std::vector<Isa> supported_isas() {
  std::vector<Isa> isas;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (isa <= detected_isa()) isas.push_back(isa);
  }
  return isas;
}

inline std::vector<float> random_floats(int64_t n, uint32_t seed, float lo = -4.0f,
                                        float hi = 4.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& v : values) v = dist(rng);
  return values;
}

// Sets OpenMP's thread count for a test (kernels that split work, and
// plans that choose by the team's size) and puts the old one back.
class TeamOf {
 public:
  explicit TeamOf(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(threads); }
  ~TeamOf() { omp_set_num_threads(saved_); }
  TeamOf(const TeamOf&) = delete;
  TeamOf& operator=(const TeamOf&) = delete;

 private:
  int saved_;
};

}  // namespace inferlab::kernels::cpu
