// Monotonic time in the units InferLab reports: nanoseconds since a start
// point taken with steady_clock (never the wall clock, which can jump).
#pragma once

#include <chrono>
#include <cstdint>

namespace inferlab {

using SteadyTime = std::chrono::steady_clock::time_point;

inline SteadyTime steady_now() { return std::chrono::steady_clock::now(); }

inline int64_t nanoseconds_since(SteadyTime start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(steady_now() - start).count();
}

inline double milliseconds_since(SteadyTime start) {
  return static_cast<double>(nanoseconds_since(start)) / 1e6;
}

}  // namespace inferlab
