#include "inferlab/core/process_stats.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace inferlab {

int64_t process_memory_kib(pid_t pid, const std::string& key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  }
  return -1;
}

double process_cpu_ms(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return -1.0;
  std::istringstream fields(text.substr(name_end + 2));
  std::string field;
  long user_ticks = 0, system_ticks = 0;
  // Fields after the command name start at "state" (field 3); utime is 14, stime 15.
  for (int index = 0; fields >> field && index <= 12; ++index) {
    if (index == 11) user_ticks = std::stol(field);
    if (index == 12) system_ticks = std::stol(field);
  }
  return static_cast<double>(user_ticks + system_ticks) * 1000.0 /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace inferlab
