// The worker side of docs/worker-protocol.md for an in-process Backend: the
// heart of inferlab-backend-host, which runs libtorch (and, for isolated
// benchmarks, any backend) in its own process.
#pragma once

#include "inferlab/backends/backend.h"
#include "inferlab/backends/worker/channel.h"

namespace inferlab::backends {

// Sends hello, then serves requests until "close" or until the parent's end
// closes. Returns the process exit status (0).
int serve_backend(Backend& backend, const Channel& channel, double import_ms);

// Tells the parent the worker could not start (sent instead of hello).
void send_start_error(const Channel& channel, const Error& error);

}  // namespace inferlab::backends
