// One inference request on its way through a model's scheduler: the inputs,
// how it is to be queued, and the callback that answers it. The HTTP layer
// builds it; the scheduler queues it, runs it on an instance and completes
// it exactly once: with outputs, or with an Error (queue timeout,
// cancellation, a failed run, shutdown).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "inferlab/backends/backend.h"
#include "inferlab/core/error.h"

namespace inferlab::serve {

using Clock = std::chrono::steady_clock;

// Where one request's time went, in nanoseconds (Triton's statistics).
struct JobTimings {
  int64_t queue_ns = 0;           // queued until an instance took it
  int64_t compute_input_ns = 0;   // input checks and conversion into the engine
  int64_t compute_infer_ns = 0;   // the engine's run
  int64_t compute_output_ns = 0;  // outputs back from the engine
};

struct JobResult {
  std::optional<Error> error;  // set: the request failed; outputs are empty
  backends::TensorMap outputs;
  JobTimings timings;
};

struct Job {
  backends::TensorMap inputs;
  // The schedule_policy extension: 0 or absent = the model's default level.
  int64_t priority = 0;
  std::optional<int64_t> timeout_us;
  int64_t batch_size = 1;  // samples in the request (statistics' inference_count)
  // Called exactly once, from a scheduler thread (or from submit's caller
  // when the request is refused before it is queued: see Scheduler).
  std::function<void(JobResult)> complete;

  // Filled in by the queue.
  uint64_t ticket = 0;
  size_t level = 0;  // priority level index, 0 = highest
  Clock::time_point enqueued;
  std::optional<Clock::time_point> deadline;
  bool delayed = false;  // timed out under timeout_action DELAY
};

}  // namespace inferlab::serve
