// Runs jobs each in its own forked child process, a few at a time, so that a
// job that crashes (a signal, an abort, a sanitizer report) or hangs costs
// that job only. A child sends its result as a string through a pipe; its
// stdout and stderr go through a second pipe whose tail the parent keeps for
// the report. The parent must be single-threaded when it forks.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace inferlab::conformance {

// What the parent learned about one finished child.
struct ChildResult {
  bool sent_result = false;  // the job returned and its string arrived whole
  std::string result;
  bool timed_out = false;
  int term_signal = 0;  // non-zero when a signal ended the child
  int exit_status = 0;
  std::string log_tail;  // last bytes the child wrote to stdout/stderr
  double seconds = 0;

  bool clean_exit() const { return !timed_out && term_signal == 0 && exit_status == 0; }
};

inline std::string signal_name(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation ? std::string("SIG") + abbreviation
                      : "signal " + std::to_string(signal_number);
}

namespace detail {

inline constexpr size_t kLogTailBytes = 4096;

class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() { reset(); }

  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline std::pair<FileDescriptor, FileDescriptor> make_pipe() {
  int fds[2];
  if (::pipe(fds) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  return {FileDescriptor(fds[0]), FileDescriptor(fds[1])};
}

inline void write_all(int fd, const std::string& data) {
  size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<size_t>(n);
  }
}

// One running child. Destroying a child that still runs kills and reaps it.
class Child {
 public:
  Child(size_t job_index, const std::function<std::string(size_t)>& job) : job_index_(job_index) {
    auto [result_read, result_write] = make_pipe();
    auto [log_read, log_write] = make_pipe();
    std::cout.flush();
    std::fflush(nullptr);
    start_ = std::chrono::steady_clock::now();
    pid_ = ::fork();
    if (pid_ < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid_ == 0) {
      result_read.reset();
      log_read.reset();
      ::dup2(log_write.get(), STDOUT_FILENO);
      ::dup2(log_write.get(), STDERR_FILENO);
      log_write.reset();
      run_in_child(job, result_write.get());
    }
    result_fd_ = std::move(result_read);
    log_fd_ = std::move(log_read);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  size_t job_index() const { return job_index_; }
  // Adds the child's pipes that are still open; returns false when none is
  // (the child is exiting and only needs reaping).
  bool add_poll_fds(std::vector<pollfd>& fds) const {
    for (const auto* fd : {&result_fd_, &log_fd_}) {
      if (fd->is_open()) fds.push_back({fd->get(), POLLIN, 0});
    }
    return result_fd_.is_open() || log_fd_.is_open();
  }
  void read_ready(const std::vector<pollfd>& fds) {
    for (const auto& entry : fds) {
      if (!(entry.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (entry.fd == result_fd_.get()) drain(result_fd_, result_.result);
      if (entry.fd == log_fd_.get()) drain(log_fd_, result_.log_tail);
    }
    if (result_.log_tail.size() > 2 * kLogTailBytes) {
      result_.log_tail.erase(0, result_.log_tail.size() - kLogTailBytes);
    }
  }
  // True once the child has ended (exited, died or was killed for the timeout).
  bool poll_finished(std::chrono::duration<double> timeout) {
    const double elapsed = seconds_running();
    if (!result_fd_.is_open() && !log_fd_.is_open() && reap(WNOHANG)) return true;
    if (elapsed < timeout.count()) return false;
    ::kill(pid_, SIGKILL);
    reap(0);
    result_.timed_out = true;
    return true;
  }
  ChildResult take_result() {
    result_.seconds = seconds_running();
    if (result_.log_tail.size() > kLogTailBytes) {
      result_.log_tail.erase(0, result_.log_tail.size() - kLogTailBytes);
    }
    // The child writes its result then a final newline sentinel.
    result_.sent_result = !result_.result.empty() && result_.result.back() == '\n';
    if (result_.sent_result) result_.result.pop_back();
    return std::move(result_);
  }

 private:
  // The child's whole life: run the job, send its result, exit. Exiting
  // through std::exit lets sanitizers run their end-of-process checks.
  [[noreturn]] void run_in_child(const std::function<std::string(size_t)>& job, int fd) {
    std::string result;
    try {
      result = job(job_index_);
    } catch (const std::exception& error) {
      std::cerr << "conformance job threw: " << error.what() << std::endl;
      std::exit(3);
    }
    write_all(fd, result + "\n");
    std::exit(0);
  }

  double seconds_running() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  static void drain(FileDescriptor& fd, std::string& buffer) {
    char chunk[65536];
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n > 0) {
      buffer.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      fd.reset();
    }
  }
  bool reap(int flags) {
    int status = 0;
    pid_t done = ::waitpid(pid_, &status, flags);
    if (done == 0) return false;
    pid_ = -1;
    if (WIFSIGNALED(status)) result_.term_signal = WTERMSIG(status);
    if (WIFEXITED(status)) result_.exit_status = WEXITSTATUS(status);
    return true;
  }

  size_t job_index_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point start_;
  FileDescriptor result_fd_;
  FileDescriptor log_fd_;
  ChildResult result_;
};

}  // namespace detail

// Runs job(0) .. job(count-1), each in a child process, `parallelism` at a
// time, and calls on_done(index, result) in the parent as each one ends.
inline void run_in_child_processes(size_t count, int parallelism,
                                   std::chrono::duration<double> timeout,
                                   const std::function<std::string(size_t)>& job,
                                   const std::function<void(size_t, ChildResult)>& on_done) {
  std::vector<std::unique_ptr<detail::Child>> running;
  size_t next = 0;
  const size_t max_running = static_cast<size_t>(parallelism < 1 ? 1 : parallelism);
  while (next < count || !running.empty()) {
    while (running.size() < max_running && next < count) {
      running.push_back(std::make_unique<detail::Child>(next++, job));
    }
    std::vector<pollfd> fds;
    bool some_child_exiting = false;
    for (const auto& child : running) some_child_exiting |= !child->add_poll_fds(fds);
    ::poll(fds.data(), fds.size(), some_child_exiting ? 1 : 50);
    for (size_t i = 0; i < running.size();) {
      running[i]->read_ready(fds);
      if (!running[i]->poll_finished(timeout)) {
        ++i;
        continue;
      }
      const size_t index = running[i]->job_index();
      ChildResult result = running[i]->take_result();
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      on_done(index, std::move(result));
    }
  }
}

}  // namespace inferlab::conformance
