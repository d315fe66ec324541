#include "inferlab/cli/openmp_policy.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace inferlab::cli {

namespace {

// Commands that host several models in one process; `load`, because its
// --in-process side must run the engine as the server it is compared with
// does.
constexpr const char* kPassiveOpenMpCommands[] = {"serve", "load"};

bool hosts_several_models(const std::string& command) {
  for (const char* name : kPassiveOpenMpCommands)
    if (command == name) return true;
  const char* extra = std::getenv("INFERLAB_PASSIVE_OPENMP_COMMANDS");
  std::istringstream names(extra == nullptr ? "" : extra);
  for (std::string name; std::getline(names, name, ',');)
    if (name == command) return true;
  return false;
}

}  // namespace

void ensure_passive_openmp_or_reexec(int argc, char** argv) {
  if (argc < 2 || std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (!hosts_several_models(argv[1])) return;
  // Set before the exec, so the new image (and every worker it starts)
  // inherits it, and the new image finds it set and does not exec again.
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  execv("/proc/self/exe", argv);
  // Still here: /proc is not mounted or the binary is gone. Run as is.
}

}  // namespace inferlab::cli
