// The OpenMP thread count and denormal modes of a run; see compute_threads.h.
#include "inferlab/runtime/compute_threads.h"

#include <omp.h>
#include <xmmintrin.h>

namespace inferlab::runtime {
namespace {

constexpr unsigned kFlushToZero = 0x8000;       // MXCSR.FTZ: denormal results become 0
constexpr unsigned kDenormalsAreZero = 0x0040;  // MXCSR.DAZ: denormal inputs read as 0
constexpr unsigned kFlushModes = kFlushToZero | kDenormalsAreZero;

// Sets `modes` (an MXCSR value) on the caller and every thread of a team of
// `threads`: the team's threads are the ones the run's parallel regions
// reuse, and threads created later copy the caller's.
void set_modes(unsigned modes, int threads) {
  _mm_setcsr(modes);
  if (threads <= 1) return;
#pragma omp parallel num_threads(threads)
  _mm_setcsr(modes);
}

}  // namespace

int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_num_procs(); }

std::string threads_label(int requested, int used) {
  if (requested > 0) return std::to_string(requested);
  return used > 0 ? std::to_string(used) + " (one per core)" : "one per core";
}

bool flushes_denormals() { return (_mm_getcsr() & kFlushModes) == kFlushModes; }

ComputeThreads::ComputeThreads(int threads, bool flush_denormals)
    : threads_(resolve_threads(threads)),
      saved_(omp_get_max_threads()),
      saved_modes_(_mm_getcsr()) {
  omp_set_num_threads(threads_);
  flush_ = flush_denormals && (saved_modes_ & kFlushModes) != kFlushModes;
  if (flush_) set_modes(saved_modes_ | kFlushModes, threads_);
}

ComputeThreads::~ComputeThreads() {
  if (flush_) set_modes(saved_modes_, threads_);
  omp_set_num_threads(saved_);
}

}  // namespace inferlab::runtime
