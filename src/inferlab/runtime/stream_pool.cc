// See stream_pool.h.
#include "inferlab/runtime/stream_pool.h"

namespace inferlab::runtime {

StreamPool::StreamPool(int streams) {
  // Lowest index last, so it is handed out first.
  for (int stream = streams - 1; stream >= 0; --stream) free_.push_back(stream);
}

int StreamPool::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [&] { return !free_.empty(); });
  const int stream = free_.back();
  free_.pop_back();
  return stream;
}

void StreamPool::release(int stream) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(stream);
  }
  freed_.notify_one();
}

}  // namespace inferlab::runtime
