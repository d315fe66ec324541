// `inferlab bench` as a library call: measures every backend on the same
// inputs, each in its own worker process, in interleaved (or shuffled)
// rounds, compares their outputs with the reference backend's, and returns
// the result document of docs/bench-schema.md.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/backends/registry.h"
#include "inferlab/bench/bench_options.h"

namespace inferlab::bench {

// Called with a one-line status ("point 1/3  round 4/10  onnxruntime").
using ProgressCallback = std::function<void(const std::string&)>;

nlohmann::json run_bench(const BenchOptions& options, backends::BackendRegistry& registry,
                         const ProgressCallback& progress = {});

}  // namespace inferlab::bench
