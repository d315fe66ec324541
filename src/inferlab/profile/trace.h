// A profile as a Chrome trace-event file (the JSON Object Format of the
// Trace Event Format; opens in Perfetto and chrome://tracing): one process
// per backend, one track per thread that ran nodes, plus a "runs" track with
// one event per profiled run. Every node execution is a complete ("X")
// event named after the node, with its operator type, run, covered ONNX
// nodes and static cost in `args`. Runs are laid end to end per backend.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/profile/profile.h"

namespace inferlab::profile {

nlohmann::json trace_json(const ProfileResult& result);

// Writes trace_json(result) to `path`; throws Error(kIo) naming it.
void write_trace(const ProfileResult& result, const std::string& path);

}  // namespace inferlab::profile
