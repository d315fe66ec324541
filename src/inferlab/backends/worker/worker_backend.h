// WorkerBackend: a Backend whose engine runs in a worker process (one per
// opened model, so each model's memory and load time are its own). Used for
// PyTorch-based engines, which need their environment set before they load,
// and for any backend a benchmark wants isolated.
#pragma once

#include <functional>
#include <memory>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/worker/worker_connection.h"

namespace inferlab::backends {

// Builds the launch for a model opened with `options` (threads shape the
// worker's environment).
using LaunchFactory = std::function<WorkerLaunch(const BackendOptions& options)>;

std::unique_ptr<Backend> make_worker_backend(std::string name, LaunchFactory launch);

}  // namespace inferlab::backends
