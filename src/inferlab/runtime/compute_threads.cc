// The OpenMP thread count of a run; see compute_threads.h.
#include "inferlab/runtime/compute_threads.h"

#include <omp.h>

namespace inferlab::runtime {

int resolve_threads(int threads) { return threads > 0 ? threads : omp_get_num_procs(); }

ComputeThreads::ComputeThreads(int threads)
    : threads_(resolve_threads(threads)), saved_(omp_get_max_threads()) {
  omp_set_num_threads(threads_);
}

ComputeThreads::~ComputeThreads() { omp_set_num_threads(saved_); }

}  // namespace inferlab::runtime
