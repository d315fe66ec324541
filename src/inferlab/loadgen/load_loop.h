// The two ways `inferlab load` drives a target, over any Channel (an HTTP
// connection, or a model instance in this process):
//   closed loop: `concurrency` threads, each with a channel of its own,
//     sending back to back; latency from send to reply.
//   open loop: requests scheduled every 1/rate seconds from the start, sent
//     by a pool of `connections` threads; latency from each request's
//     SCHEDULED time, so time spent waiting for a free sender counts (no
//     coordinated omission: a slow target cannot slow the schedule down).
// A warm-up (not counted) comes first. The measured requests are those sent
// (closed) or scheduled (open) after it: within `duration_s`, or the first
// `requests` of them. Every measured request is waited for and counted,
// success or error; none is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace inferlab::loadgen {

// How one request ended. `error` is its key in the error tally ("503",
// "connect", "timeout", "reset", or an error code's name in process);
// `detail` the first words of what went wrong, kept for the report.
struct Outcome {
  bool ok = true;
  std::string error;
  std::string detail;
};

// Sends requests to the target; one thread uses a channel at a time.
class Channel {
 public:
  virtual ~Channel() = default;
  // Before the clock starts: open a connection, touch the model.
  virtual void prepare() {}
  virtual Outcome send() = 0;
  virtual int64_t connections_opened() const { return 0; }
};

// Makes the channel of sending thread `index` (called on that thread).
using ChannelFactory = std::function<std::unique_ptr<Channel>(int index)>;

struct LoadOptions {
  int concurrency = 1;     // closed loop: sending threads
  double rate = 0;         // > 0: open loop, requests per second
  int connections = 64;    // open loop: sending threads (each with a channel)
  double warmup_s = 1.0;   // not counted
  double duration_s = 10;  // measured, unless `requests` is set
  int64_t requests = 0;    // > 0: measure this many requests instead
  bool open_loop() const { return rate > 0; }
};

struct LoadResult {
  int64_t requests = 0;  // measured, success or error
  int64_t successes = 0;
  std::map<std::string, int64_t> errors;             // by key; sums to requests - successes
  std::map<std::string, std::string> error_details;  // the first detail per key
  std::vector<double> latency_ms;                    // successful requests only
  std::vector<double> send_lag_ms;                   // open loop: send time - scheduled time
  // Throughput is window_replies / window_s. By duration: the replies that
  // came inside the measured window, over its length (a reply still awaited
  // at its end, even one that times out 30 s later, cannot stretch it). By
  // count: every measured reply, from the end of warm-up to the last one.
  double window_s = 0;
  int64_t window_replies = 0;
  int64_t window_successes = 0;
  double cpu_s = 0;  // this process's user + system CPU over the window
  int64_t connections_opened = 0;
  int senders = 0;  // threads that sent
};

// Called about twice a second from the calling thread while the load runs.
using LoadProgress = std::function<void(double elapsed_s, int64_t measured)>;

// Runs the load. Throws Error(kInvalidArgument) for options out of range;
// whatever a channel's factory throws (before any request) is rethrown.
LoadResult run_load(const LoadOptions& options, const ChannelFactory& make_channel,
                    const LoadProgress& progress = {});

}  // namespace inferlab::loadgen
