// Storing and checking sysinfo records; see sysinfo_record.h.
#include "inferlab/sysinfo/sysinfo_record.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::sysinfo {
namespace fs = std::filesystem;

std::string default_record_path() {
  const char* cache = std::getenv("INFERLAB_CACHE");
  const char* home = std::getenv("HOME");
  const std::string directory =
      cache != nullptr ? cache : std::string(home != nullptr ? home : "/root") + "/.cache/inferlab";
  return directory + "/sysinfo.json";
}

void save_record(const nlohmann::json& record, const std::string& path) {
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  const std::string temporary = fmt::format("{}.{}.tmp", path, getpid());
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << record.dump(2) << "\n";
    if (!file) fail(ErrorCode::kIo, "cannot write the sysinfo record {}", temporary);
  }
  fs::rename(temporary, target, error);
  if (error) {
    fs::remove(temporary, error);
    fail(ErrorCode::kIo, "cannot write the sysinfo record {}", path);
  }
}

nlohmann::json load_record(const std::string& path) {
  std::ifstream file(path);
  if (!file) fail(ErrorCode::kIo, "cannot read the sysinfo record {}", path);
  nlohmann::json record = nlohmann::json::parse(file, nullptr, false);
  if (record.is_discarded() || !record.is_object()) {
    fail(ErrorCode::kInvalidArgument, "{} is not JSON from `inferlab sysinfo --json`", path);
  }
  for (const char* field :
       {"peak_gflops_single_core", "peak_gflops_all_cores", "memory_bandwidth_gbps"}) {
    if (!record.contains(field) || !record[field].is_number() || record[field].get<double>() <= 0) {
      fail(ErrorCode::kInvalidArgument,
           "{}: sysinfo record lacks a positive '{}' (write it with `inferlab sysinfo --json`)",
           path, field);
    }
  }
  const nlohmann::json threads =
      record.value(nlohmann::json::json_pointer("/fma/all_cores/threads"), nlohmann::json());
  if (!threads.is_number_integer() || threads.get<int>() < 1) {
    fail(ErrorCode::kInvalidArgument, "{}: sysinfo record lacks 'fma.all_cores.threads'", path);
  }
  return record;
}

std::optional<std::string> record_mismatch(const nlohmann::json& record,
                                           const nlohmann::json& machine) {
  if (record.value("quick", false)) return "it is a --quick measurement";
  const std::string model = record.value("cpu_model", "");
  const std::string this_model = machine.value("cpu_model", "");
  const int64_t cores = record.value("usable_cores", int64_t{0});
  const int64_t this_cores = machine.value("usable_cores", int64_t{0});
  if (model != this_model || cores != this_cores) {
    return fmt::format("it was measured on '{}' with {} usable cores; this is '{}' with {}", model,
                       cores, this_model, this_cores);
  }
  return std::nullopt;
}

}  // namespace inferlab::sysinfo
