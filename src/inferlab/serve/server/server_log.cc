#include "inferlab/serve/server/server_log.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace inferlab::serve {

void ServerLog::write(char kind, std::string_view message) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &utc);
  const std::string line = fmt::format("{} {}.{:06d}Z {}\n", kind, stamp, micros, message);
  std::lock_guard lock(mutex_);
  out_ << line << std::flush;
}

}  // namespace inferlab::serve
