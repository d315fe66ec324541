// WeightMemory: where a session's weights are, in bytes (Session::weight_memory).
#pragma once

#include <cstdint>

namespace inferlab::runtime {

// The main graph's initializers as a session holds them: with their data
// (resident), or released because every node that reads them holds a
// prepacked copy of its own (rebuilt from that copy when a run needs the
// original again). packed_bytes: those copies, in the nodes' caches;
// packed_copies of them, packed_here made by this session's reorders (the
// rest came ready-made from a plan file: a cached load reorders nothing).
struct WeightMemory {
  int64_t resident_count = 0;
  int64_t resident_bytes = 0;
  int64_t released_count = 0;
  int64_t released_bytes = 0;
  int64_t packed_bytes = 0;
  int64_t packed_copies = 0;
  int64_t packed_here = 0;
};

}  // namespace inferlab::runtime
