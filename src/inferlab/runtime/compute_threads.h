// How many threads compute a run. oneDNN (as Debian builds it) and
// InferLab's own parallel kernels run on one OpenMP team, sized per thread
// of the caller by OpenMP's nthreads ICV: a session sets it for the length
// of each run (and of building a plan, since oneDNN fits its kernels to the
// thread count it sees when a primitive is created) and puts the caller's
// value back after, so two sessions in one process with different thread
// counts each get their own, and the caller's own OpenMP code is untouched.
#pragma once

namespace inferlab::runtime {

class ComputeThreads {
 public:
  // `threads` 0: one per CPU this process may run on.
  explicit ComputeThreads(int threads);
  ~ComputeThreads();
  ComputeThreads(const ComputeThreads&) = delete;
  ComputeThreads& operator=(const ComputeThreads&) = delete;

  int threads() const { return threads_; }

 private:
  int threads_ = 1;
  int saved_ = 1;
};

// SessionOptions::threads resolved: 0 becomes the usable CPU count.
int resolve_threads(int threads);

}  // namespace inferlab::runtime
