// Ctrl-C in the middle of a run on a worker backend: the CLI dies of the
// signal, its worker is killed and reaped with it, and nothing is left in
// /dev/shm (arenas are memfds, which vanish with their last process).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "test_util.h"

namespace inferlab::testing {
namespace {

std::set<std::string> shm_entries() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator("/dev/shm"))
    names.insert(entry.path().filename().string());
  return names;
}

// Entries that appeared since `before` and that `pids` could have made.
// Tests run two at a time: an Intel OpenMP runtime in another test's process
// registers itself as /dev/shm/__KMP_REGISTERED_LIB_<pid>_<uid> while it
// lives, so such an entry of any other process is not ours.
std::set<std::string> left_behind(const std::set<std::string>& before,
                                  const std::vector<pid_t>& pids) {
  const std::string kmp_prefix = "__KMP_REGISTERED_LIB_";
  std::set<std::string> left;
  for (const std::string& name : shm_entries()) {
    if (before.count(name) != 0) continue;
    if (name.rfind(kmp_prefix, 0) == 0) {
      const pid_t owner = static_cast<pid_t>(std::atol(name.c_str() + kmp_prefix.size()));
      if (std::find(pids.begin(), pids.end(), owner) == pids.end()) continue;
    }
    left.insert(name);
  }
  return left;
}

// The pids whose parent is `parent`.
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t name_end = text.rfind(')');
    if (name_end == std::string::npos) continue;
    std::istringstream fields(text.substr(name_end + 2));
    std::string state;
    pid_t ppid = 0;
    fields >> state >> ppid;
    if (ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

bool process_exists(pid_t pid) { return kill(pid, 0) == 0; }

TEST(Interrupt, SigintMidRunReapsTheWorkerAndLeavesNothingBehind) {
  const std::set<std::string> shm_before = shm_entries();
  const std::string model = source_dir() + "/tests/backends/data/slow_forward";
  const pid_t cli = fork();
  ASSERT_GE(cli, 0);
  if (cli == 0) {
    const std::string path = cli_path();
    freopen("/dev/null", "w", stdout);
    execl(path.c_str(), path.c_str(), "run", model.c_str(), "--backend", "python",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the worker to start and begin the 30-second forward.
  std::vector<pid_t> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (workers.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = children_of(cli);
  }
  ASSERT_EQ(workers.size(), 1u) << "the CLI did not start a worker";
  std::this_thread::sleep_for(std::chrono::seconds(3));  // import torch, open, run
  ASSERT_EQ(kill(cli, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(cli, &status, 0), cli);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << "status " << status;
  EXPECT_FALSE(process_exists(workers[0])) << "worker " << workers[0] << " outlived the CLI";
  EXPECT_EQ(left_behind(shm_before, {cli, workers[0]}), std::set<std::string>{});
}

}  // namespace
}  // namespace inferlab::testing
