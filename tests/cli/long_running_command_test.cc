// Commands that run long: `inferlab bench` killed with SIGTERM mid-run kills
// and reaps its worker and ends by that signal (docs/cli.md); a command that
// hosts several models re-executes itself with OMP_WAIT_POLICY=PASSIVE
// unless the user set a policy (INFERLAB_PASSIVE_OPENMP_COMMANDS names
// `bench` as such a command here, since `serve` is the only one listed).
// Each case watches a live process through /proc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.h"

extern char** environ;

namespace inferlab::testing {
namespace {

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

std::string command_line_of(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline");
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

// The environment `pid` was exec'd with, by name.
std::map<std::string, std::string> environment_of(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/environ");
  std::map<std::string, std::string> variables;
  for (std::string entry; std::getline(file, entry, '\0');) {
    const size_t equals = entry.find('=');
    if (equals != std::string::npos) variables[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  return variables;
}

// A bench of a tiny model that would run for hours, with this process's
// environment changed by `overrides` (an empty value removes the variable).
class LongBench {
 public:
  explicit LongBench(const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
      const std::string text(*entry);
      if (overrides.count(text.substr(0, text.find('='))) == 0) env.push_back(text);
    }
    for (const auto& [name, value] : overrides)
      if (!value.empty()) env.push_back(name + "=" + value);
    const std::vector<std::string> args = {cli_path(),    "bench",    node_model("test_relu"),
                                           "--backends",  "native",   "--reference",
                                           "native",      "--rounds", "100000",
                                           "--settle-ms", "0"};
    std::vector<char*> argv, envp;
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    for (std::string& entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
  }
  ~LongBench() {
    if (pid_ > 0 && !ended_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }

  // The worker, once the bench has started it (exec'd, so the bench has long
  // recorded it); -1 if none came (a hang guard, not a timing check).
  pid_t wait_for_worker() const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      for (pid_t child : children_of(pid_))
        if (command_line_of(child).find("--channel-fd") != std::string::npos) return child;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return -1;
  }

  // Sends `signal_number` and returns the wait status.
  int stop_with(int signal_number) {
    kill(pid_, signal_number);
    int status = 0;
    waitpid(pid_, &status, 0);
    ended_ = true;
    return status;
  }

 private:
  pid_t pid_ = -1;
  bool ended_ = false;
};

bool process_exists(pid_t pid) { return kill(pid, 0) == 0; }

TEST(LongRunningCommand, SigtermMidBenchReapsTheWorkerAndEndsBySigterm) {
  LongBench bench({});
  ASSERT_GT(bench.pid(), 0);
  const pid_t worker = bench.wait_for_worker();
  ASSERT_GT(worker, 0) << "the bench did not start a worker";
  const int status = bench.stop_with(SIGTERM);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_FALSE(process_exists(worker)) << "worker " << worker << " outlived the bench";
}

TEST(LongRunningCommand, ACommandHostingSeveralModelsRunsWithPassiveOpenMp) {
  LongBench bench({{"OMP_WAIT_POLICY", ""}, {"INFERLAB_PASSIVE_OPENMP_COMMANDS", "serve,bench"}});
  const pid_t worker = bench.wait_for_worker();  // started after the re-exec
  ASSERT_GT(worker, 0) << "the bench did not start a worker";
  EXPECT_EQ(environment_of(bench.pid())["OMP_WAIT_POLICY"], "PASSIVE");
  EXPECT_EQ(environment_of(worker)["OMP_WAIT_POLICY"], "PASSIVE");
  bench.stop_with(SIGTERM);
}

TEST(LongRunningCommand, AUsersOpenMpWaitPolicyIsKept) {
  LongBench bench({{"OMP_WAIT_POLICY", "ACTIVE"}, {"INFERLAB_PASSIVE_OPENMP_COMMANDS", "bench"}});
  ASSERT_GT(bench.wait_for_worker(), 0) << "the bench did not start a worker";
  EXPECT_EQ(environment_of(bench.pid())["OMP_WAIT_POLICY"], "ACTIVE");
  bench.stop_with(SIGTERM);
}

TEST(LongRunningCommand, OtherCommandsKeepLibgompsDefaultPolicy) {
  LongBench bench({{"OMP_WAIT_POLICY", ""}, {"INFERLAB_PASSIVE_OPENMP_COMMANDS", ""}});
  ASSERT_GT(bench.wait_for_worker(), 0) << "the bench did not start a worker";
  EXPECT_EQ(environment_of(bench.pid()).count("OMP_WAIT_POLICY"), 0u);
  bench.stop_with(SIGTERM);
}

}  // namespace
}  // namespace inferlab::testing
