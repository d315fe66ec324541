// The machine half of a bench result's environment record, read from Linux
// (/proc, uname, sched_getaffinity, /etc/os-release) and from what the
// build fixed (compiler, InferLab version and commit), plus file hashes so
// a reader can tell whether they hold the same model. No hostname: results
// are shared.
#include "inferlab/bench/environment_record.h"
#include "inferlab/core/file_hash.h"

#include <sched.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// "key : value" lines of the first processor in /proc/cpuinfo (up to the
// first blank line); x86 names the model "model name" and the flags "flags",
// ARM uses "Features" and often has no model name.
struct CpuInfo {
  std::string model = "unknown";
  std::vector<std::string> flags;
};

CpuInfo read_cpuinfo() {
  CpuInfo info;
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  while (std::getline(file, line)) {
    if (trim(line).empty()) break;  // end of the first processor's block
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "model name" || (key == "Hardware" && info.model == "unknown")) {
      info.model = value;
    } else if (key == "flags" || key == "Features") {
      std::istringstream words(value);
      std::string flag;
      while (words >> flag) info.flags.push_back(flag);
    }
  }
  std::sort(info.flags.begin(), info.flags.end());
  info.flags.erase(std::unique(info.flags.begin(), info.flags.end()), info.flags.end());
  return info;
}

int64_t memory_mib() {
  std::ifstream file("/proc/meminfo");
  std::string key;
  int64_t kib = 0;
  while (file >> key) {
    if (key == "MemTotal:" && file >> kib) return kib / 1024;
    file.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

int64_t usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

std::string kernel() {
  utsname name{};
  if (uname(&name) != 0) return "unknown";
  return fmt::format("{} {} {} {}", name.sysname, name.release, name.version, name.machine);
}

std::string operating_system() {
  std::ifstream file("/etc/os-release");
  std::string line;
  const std::string key = "PRETTY_NAME=";
  while (std::getline(file, line)) {
    if (line.rfind(key, 0) != 0) continue;
    std::string value = trim(line.substr(key.size()));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string inferlab_version() {
#ifdef INFERLAB_VERSION_STRING
  return INFERLAB_VERSION_STRING;
#else
  return "unknown";
#endif
}

std::string inferlab_commit() {
#ifdef INFERLAB_GIT_COMMIT
  return INFERLAB_GIT_COMMIT;
#else
  return "unknown";
#endif
}

}  // namespace

nlohmann::json machine_record() {
  const CpuInfo cpu = read_cpuinfo();
  return {
      {"cpu_model", cpu.model},
      {"cpu_flags", cpu.flags},
      {"logical_cores", static_cast<int64_t>(std::thread::hardware_concurrency())},
      {"usable_cores", usable_cores()},
      {"memory_mib", memory_mib()},
      {"kernel", kernel()},
      {"os", operating_system()},
      {"compiler", compiler()},
      {"inferlab_version", inferlab_version()},
      {"inferlab_commit", inferlab_commit()},
  };
}

}  // namespace inferlab::bench
