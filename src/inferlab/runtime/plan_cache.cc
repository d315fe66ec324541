#include "inferlab/runtime/plan_cache.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "inferlab/core/build_identity.h"
#include "inferlab/core/error.h"
#include "inferlab/core/file_hash.h"
#include "inferlab/core/stopwatch.h"
#include "inferlab/runtime/plan_file.h"

namespace inferlab::runtime {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::string text;
  std::getline(file, text);
  return text;
}

}  // namespace

PlanCache::PlanCache(std::string directory) : directory_(std::move(directory)) {
  std::error_code error;
  fs::create_directories(fs::path(directory_) / "hashes", error);
  if (error)
    fail(ErrorCode::kIo, "cannot create the plan cache directory {}: {}", directory_,
         error.message());
}

std::string PlanCache::model_sha256(const std::string& path) const {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return file_sha256(path);  // names the file in its error
  const std::string identity =
      fmt::format("{}|{}|{}.{}|{}", fs::absolute(path).string(), status.st_size,
                  status.st_mtim.tv_sec, status.st_mtim.tv_nsec, status.st_ino);
  const std::string memo =
      (fs::path(directory_) / "hashes" / sha256_hex(identity.data(), identity.size())).string();
  std::string hash = read_text(memo);
  if (hash.size() == 64) return hash;
  hash = file_sha256(path);
  const std::string temporary = memo + ".tmp";
  std::ofstream(temporary) << hash << "\n";
  std::error_code error;
  fs::rename(temporary, memo, error);  // a failed memo only costs a re-hash next time
  return hash;
}

json PlanCache::key(const PlanKeyInputs& inputs) const {
  json shapes = json::object();
  for (const auto& [name, shape] : inputs.input_shapes)
    shapes[name] = std::vector<int64_t>(shape.begin(), shape.end());
  return {{"format_version", kPlanFormatVersion},
          {"build", library_build_identity()},
          {"kernels", inputs.kernels},
          {"model_sha256", model_sha256(inputs.model_path)},
          {"opt_level", inputs.opt_level},
          {"extra_outputs", inputs.extra_outputs},
          {"input_shapes", shapes}};
}

std::string PlanCache::path_for(const json& key) const {
  // Named by what the plan is for, not by which build made it: a plan left
  // by an older build is found, reported stale and replaced.
  json identity = key;
  for (const char* field : {"format_version", "build", "kernels"}) identity.erase(field);
  const std::string text = identity.dump();
  return (fs::path(directory_) / (sha256_hex(text.data(), text.size()).substr(0, 32) + ".plan"))
      .string();
}

bool PlanCache::load(const json& key, model::Model& model, PackedNodes& packed,
                     PlanCacheStatus& status) const {
  const auto start = steady_now();
  status.path = path_for(key);
  status.outcome = "missing";
  status.detail.clear();
  std::error_code error;
  if (!fs::exists(status.path, error)) {
    status.lookup_ms = milliseconds_since(start);
    return false;
  }
  PlanRejection rejection;
  bool loaded = false;
  try {
    loaded = read_plan_file(status.path, key, model, packed, rejection);
  } catch (const Error& failure) {
    rejection = {"unreadable", failure.what()};
  }
  status.lookup_ms = milliseconds_since(start);
  if (loaded) {
    status.outcome = "loaded";
    return true;
  }
  status.outcome = "rebuilt";
  status.detail = rejection.kind + ": " + rejection.detail;
  return false;
}

void PlanCache::save(const json& key, const model::Model& model, const PackedNodes& packed,
                     PlanCacheStatus& status) const {
  const auto start = steady_now();
  status.path = path_for(key);
  try {
    write_plan_file(status.path, key, model, packed);
    if (status.outcome == "missing") status.outcome = "saved";
  } catch (const std::exception& failure) {  // Error, or JSON refusing non-UTF-8 names
    status.outcome = "unsaved";
    status.detail = failure.what();
  }
  status.save_ms = milliseconds_since(start);
}

}  // namespace inferlab::runtime
