// How many threads compute a run, and how they treat denormal floats.
// oneDNN (as Debian builds it) and InferLab's own parallel kernels run on
// one OpenMP team, sized per thread of the caller by OpenMP's nthreads ICV:
// a session sets it for the length of each run (and of building a plan,
// since oneDNN fits its kernels to the thread count it sees when a
// primitive is created) and puts the caller's value back after, so two
// sessions in one process with different thread counts each get their own,
// and the caller's own OpenMP code is untouched.
//
// Denormals: with flushing on (SessionOptions::flush_denormals), the
// caller and the team's threads compute with x86's flush-to-zero and
// denormals-are-zero modes for the length of the scope, then get the
// caller's modes back. An FMA with a denormal operand takes a microcode
// assist of about a hundred cycles: PaddleOCR's detection model, fed random
// pixels, produces denormal activations that made one depthwise
// convolution 4.5x slower. Values below 1.2e-38 become 0, far inside
// float32 tolerance; TensorFlow flushes by default, ONNX Runtime on
// request (session.set_denormal_as_zero).
#pragma once

#include <string>

namespace inferlab::runtime {

class ComputeThreads {
 public:
  // `threads` 0: one per CPU this process may run on.
  explicit ComputeThreads(int threads, bool flush_denormals = false);
  ~ComputeThreads();
  ComputeThreads(const ComputeThreads&) = delete;
  ComputeThreads& operator=(const ComputeThreads&) = delete;

  int threads() const { return threads_; }

 private:
  int threads_ = 1;
  int saved_ = 1;
  bool flush_ = false;
  unsigned saved_modes_ = 0;  // the caller's MXCSR
};

// SessionOptions::threads resolved: 0 becomes the usable CPU count.
int resolve_threads(int threads);
// A thread count as reports write it: "2 (one per core)" for a request of 0
// that resolved to `used` (0 when unknown: "one per core"), else the count.
std::string threads_label(int requested, int used);

// Whether the calling thread flushes denormals (both x86 modes set).
bool flushes_denormals();

}  // namespace inferlab::runtime
