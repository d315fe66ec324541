// inferlab-backend-host: runs one backend in a worker process for the
// registry (docs/worker-protocol.md). Started by WorkerConnection as
//   inferlab-backend-host --backend NAME --channel-fd N
// with the environment the backend needs already set (for libtorch:
// OpenBLAS, ATen ISA, OpenMP threads), which is why it is a process at all.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "inferlab/backends/registry.h"
#include "inferlab/backends/worker/channel.h"
#include "inferlab/backends/worker/worker_server.h"

namespace {

struct HostArguments {
  std::string backend;
  int channel_fd = -1;
};

HostArguments parse_arguments(int argc, char** argv) {
  HostArguments arguments;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--backend")
      arguments.backend = argv[i + 1];
    else if (flag == "--channel-fd")
      arguments.channel_fd = std::atoi(argv[i + 1]);
  }
  return arguments;
}

}  // namespace

int main(int argc, char** argv) {
  const HostArguments arguments = parse_arguments(argc, argv);
  if (arguments.backend.empty() || arguments.channel_fd < 0) {
    std::cerr << "usage: inferlab-backend-host --backend NAME --channel-fd N\n"
                 "(started by InferLab's backend registry, not by hand)\n";
    return 2;
  }
  using namespace inferlab::backends;
  const Channel channel{UniqueFd(arguments.channel_fd)};
  try {
    const auto start = std::chrono::steady_clock::now();
    BackendRegistry registry(BackendEnvironment::from_process_environment());
    std::shared_ptr<Backend> backend = registry.get(arguments.backend, Placement::kInProcess);
    const double import_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return serve_backend(*backend, channel, import_ms);
  } catch (const inferlab::Error& error) {
    try {
      send_start_error(channel, error);
    } catch (...) {
    }
    std::cerr << "inferlab-backend-host: " << error.what() << "\n";
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "inferlab-backend-host: " << error.what() << "\n";
    return 1;
  }
}
