// Process handling is the one place with process-wide state, for two reasons.
// kill_and_reap_all_children() must reach live children from any thread
// (even a signal handler), so they are in a fixed array of atomics
// (async-signal-safe, no allocation). And PR_SET_PDEATHSIG fires when the
// *thread* that forked exits, so every fork runs on one spawner thread that
// lives until exit(): a worker outlives the thread that asked for it.
#include "inferlab/backends/worker/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>

#include "inferlab/core/error.h"

extern char** environ;

namespace inferlab::backends {

namespace {

constexpr size_t kOutputTailBytes = 64 * 1024;
constexpr size_t kMaxLiveChildren = 256;

std::array<std::atomic<pid_t>, kMaxLiveChildren> live_children{};

void remember_child(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pid)) return;
  }
}

void forget_child(pid_t pid) {
  for (auto& slot : live_children) {
    pid_t expected = pid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

// One long-lived thread that performs every fork, started on first use and
// joined when the program exits (static destruction). Requests wait in a
// queue; the caller blocks until its fork is done.
class Spawner {
 public:
  static Spawner& instance() {
    static Spawner spawner;
    return spawner;
  }

  // Runs `task` on the spawner thread and returns when it has run.
  void run(std::function<void()> task) {
    std::packaged_task<void()> packaged(std::move(task));
    std::future<void> done = packaged.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(packaged));
    }
    wake_.notify_one();
    done.get();
  }

 private:
  Spawner() : thread_([this] { serve(); }) {}
  ~Spawner() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void serve() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left to start
      std::packaged_task<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members above exist
};

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    if (overrides.count(name) == 0) merged.push_back(text);
  }
  for (const auto& [name, value] : overrides)
    if (!value.empty()) merged.push_back(name + "=" + value);
  return merged;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (std::string& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const std::vector<char*>& envp,
                             const std::vector<int>& inherited, int output_fd, int status_fd,
                             pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl
  dup2(output_fd, STDOUT_FILENO);
  dup2(output_fd, STDERR_FILENO);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  for (int fd : inherited) fcntl(fd, F_SETFD, 0);  // keep across exec
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(argv[0], argv.data(), envp.data());
  const int error = errno;
  ssize_t ignored = write(status_fd, &error, sizeof(error));
  (void)ignored;
  _exit(127);
}

}  // namespace

ChildProcess::ChildProcess(const ChildSpec& spec) {
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = merged_environment(spec.environment);
  const std::vector<char*> argv = pointers(argv_strings);
  const std::vector<char*> envp = pointers(env_strings);
  int output_pipe[2], status_pipe[2];
  if (pipe2(output_pipe, O_CLOEXEC) != 0)
    fail(ErrorCode::kRuntime, "cannot start {}: {}", spec.argv.at(0), std::strerror(errno));
  UniqueFd output_read(output_pipe[0]), output_write(output_pipe[1]);
  if (pipe2(status_pipe, O_CLOEXEC) != 0)
    fail(ErrorCode::kRuntime, "cannot start {}: {}", spec.argv.at(0), std::strerror(errno));
  UniqueFd status_read(status_pipe[0]), status_write(status_pipe[1]);
  const pid_t parent = getpid();
  int fork_error = 0;
  Spawner::instance().run([&] {
    pid_ = fork();
    if (pid_ == 0)
      exec_child(argv, envp, spec.inherited_fds, output_write.get(), status_write.get(), parent);
    if (pid_ < 0) {
      fork_error = errno;
      return;
    }
    remember_child(pid_);
    setpgid(pid_, pid_);  // also from here, so the group exists before any kill
  });
  if (pid_ < 0)
    fail(ErrorCode::kRuntime, "cannot start {}: {}", spec.argv[0], std::strerror(fork_error));
  output_write.reset();
  status_write.reset();
  int exec_error = 0;
  ssize_t got;
  do {
    got = read(status_read.get(), &exec_error, sizeof(exec_error));
  } while (got < 0 && errno == EINTR);
  if (got == sizeof(exec_error)) {
    try_reap(0);
    fail(ErrorCode::kRuntime, "cannot start {}: {}", spec.argv[0], std::strerror(exec_error));
  }
  output_reader_ = std::thread(&ChildProcess::collect_output, this, std::move(output_read));
}

ChildProcess::~ChildProcess() {
  kill_and_reap();
  if (output_reader_.joinable()) output_reader_.join();
}

void ChildProcess::collect_output(UniqueFd pipe) {
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(pipe.get(), buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;  // every writer (the child and its children) is gone
    std::lock_guard<std::mutex> lock(output_mutex_);
    output_.append(buffer, static_cast<size_t>(got));
    if (output_.size() > 2 * kOutputTailBytes) output_.erase(0, output_.size() - kOutputTailBytes);
  }
}

bool ChildProcess::try_reap(int options) {
  if (reaped_) return true;
  pid_t result;
  do {
    result = waitpid(pid_, &wait_status_, options);
  } while (result < 0 && errno == EINTR);
  if (result == pid_ || (result < 0 && errno == ECHILD)) {
    reaped_ = true;
    forget_child(pid_);
  }
  return reaped_;
}

bool ChildProcess::wait_for_exit(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!try_reap(WNOHANG)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void ChildProcess::kill_and_reap() {
  if (pid_ <= 0 || reaped_) return;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  try_reap(0);
}

std::string ChildProcess::exit_description() const {
  if (!reaped_) return "still running";
  if (WIFEXITED(wait_status_))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int number = WTERMSIG(wait_status_);
    return "killed by signal " + std::to_string(number) + " (" + strsignal(number) + ")";
  }
  return "ended";
}

std::string ChildProcess::output_tail() const {
  std::lock_guard<std::mutex> lock(output_mutex_);
  if (output_.size() <= kOutputTailBytes) return output_;
  return output_.substr(output_.size() - kOutputTailBytes);
}

void kill_and_reap_all_children() {
  for (auto& slot : live_children) {
    const pid_t pid = slot.exchange(0);
    if (pid <= 0) continue;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace inferlab::backends
