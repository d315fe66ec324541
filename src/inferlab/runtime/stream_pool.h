// The streams of a throughput-mode session (SessionOptions::mode): a fixed
// set of indexes handed out to concurrent run() calls, one call per stream
// at a time, so each request computes on its own stream's executor, plans
// and OpenMP team while the others compute on theirs (OpenVINO's "streams").
#pragma once

#include <condition_variable>
#include <mutex>
#include <vector>

namespace inferlab::runtime {

class StreamPool {
 public:
  explicit StreamPool(int streams);

  // A free stream, waiting until one is.
  int acquire();
  void release(int stream);

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<int> free_;
};

// Holds a stream for the length of a scope.
class StreamLease {
 public:
  explicit StreamLease(StreamPool& pool) : pool_(pool), stream_(pool.acquire()) {}
  ~StreamLease() { pool_.release(stream_); }
  StreamLease(const StreamLease&) = delete;
  StreamLease& operator=(const StreamLease&) = delete;
  int stream() const { return stream_; }

 private:
  StreamPool& pool_;
  int stream_;
};

}  // namespace inferlab::runtime
