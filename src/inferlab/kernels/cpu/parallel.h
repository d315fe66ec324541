// Splitting InferLab's own kernels over the OpenMP team oneDNN runs on, so
// they never compete with it for cores and use what the session was given:
// the team is sized by the nthreads ICV a session sets for each run
// (runtime/compute_threads.h).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace inferlab::kernels::cpu {

// Elements (or element-sized units of work) below which one more thread
// costs more to wake than it saves: about 10 µs of streaming work.
constexpr int64_t kMinPerThread = 32 * 1024;

// Runs work(begin, end) over [0, count) in one contiguous range per thread,
// each starting at a multiple of `align`; `cost_per_item` elements of work
// per item decide whether to split at all. Work must not throw.
template <typename Work>
void parallel_ranges(int64_t count, int64_t cost_per_item, int64_t align, Work&& work) {
  const int64_t total = count * std::max<int64_t>(1, cost_per_item);
  const int64_t wanted = std::min<int64_t>(omp_get_max_threads(), total / kMinPerThread);
  if (wanted <= 1 || count < 2 * align) {
    work(int64_t{0}, count);
    return;
  }
#pragma omp parallel num_threads(static_cast <int>(wanted))
  {
    const int64_t team = omp_get_num_threads();
    const int64_t me = omp_get_thread_num();
    int64_t per = (count + team - 1) / team;
    per = (per + align - 1) / align * align;
    const int64_t begin = std::min(count, me * per);
    const int64_t end = std::min(count, begin + per);
    if (begin < end) work(begin, end);
  }
}

}  // namespace inferlab::kernels::cpu
