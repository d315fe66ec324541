// The server's log on standard error: one timestamped line per event
// (loads, unloads, warnings, worker restarts), verbose lines when
// --log-verbose asks for them, and the optional access log, one line per
// HTTP request. Lines from many threads never interleave.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace inferlab::serve {

class ServerLog {
 public:
  ServerLog(std::ostream& out, int verbose_level, bool access_log)
      : out_(out), verbose_level_(verbose_level), access_log_(access_log) {}

  void info(std::string_view message) { write('I', message); }
  void warning(std::string_view message) { write('W', message); }
  void error(std::string_view message) { write('E', message); }
  // Written when --log-verbose is at least `level`.
  void verbose(int level, std::string_view message) {
    if (verbose_level_ >= level) write('V', message);
  }
  bool access_log() const { return access_log_; }
  void access(std::string_view line) {
    if (access_log_) write('A', line);
  }

 private:
  void write(char kind, std::string_view message);

  std::mutex mutex_;
  std::ostream& out_;
  int verbose_level_ = 0;
  bool access_log_ = false;
};

}  // namespace inferlab::serve
