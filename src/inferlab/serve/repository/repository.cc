#include "inferlab/serve/repository/repository.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "inferlab/core/error.h"

namespace inferlab::serve {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxModelNameBytes = 128;
// Triton's default file names, and InferLab's model directory.
constexpr const char* kModelFiles[] = {"model.json", "model.onnx", "model.pt"};

bool valid_model_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxModelNameBytes || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

// A version folder's number: digits only, from 1.
std::optional<int64_t> version_number(const std::string& folder) {
  int64_t version = 0;
  const char* end = folder.data() + folder.size();
  const auto [last, error] = std::from_chars(folder.data(), end, version);
  if (error != std::errc() || last != end || version < 1) return std::nullopt;
  return version;
}

// What serves a version: model.json's folder, else model.onnx, else model.pt.
std::optional<fs::path> version_source(const fs::path& version_dir) {
  for (const char* file : kModelFiles) {
    const fs::path path = version_dir / file;
    if (!fs::is_regular_file(path)) continue;
    return std::string_view(file) == "model.json" ? version_dir : path;
  }
  return std::nullopt;
}

}  // namespace

void check_model_name(std::string_view name) {
  if (!valid_model_name(name)) {
    fail(ErrorCode::kInvalidArgument,
         "model name '{}' is not one repository folder (1-{} letters, digits, '_', '-', '.')",
         name.substr(0, kMaxModelNameBytes), kMaxModelNameBytes);
  }
}

std::vector<std::string> list_models(const fs::path& repository) {
  if (!fs::is_directory(repository)) {
    fail(ErrorCode::kNotFound, "model repository {} is not a directory", repository.string());
  }
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(repository)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && valid_model_name(name)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<int64_t> select_versions(const config::ModelVersionPolicy& policy,
                                     const std::vector<int64_t>& available) {
  if (policy.has_all()) return available;
  if (policy.has_specific()) {
    std::vector<int64_t> chosen;
    for (int64_t version : available) {
      const auto& wanted = policy.specific().versions();
      if (std::find(wanted.begin(), wanted.end(), version) != wanted.end()) {
        chosen.push_back(version);
      }
    }
    return chosen;
  }
  const size_t latest = policy.has_latest() ? policy.latest().num_versions() : 1;
  const size_t keep = std::min(latest, available.size());
  return std::vector<int64_t>(available.end() - static_cast<std::ptrdiff_t>(keep), available.end());
}

RepositoryModel read_repository_model(const fs::path& repository, std::string_view name) {
  check_model_name(name);
  RepositoryModel model;
  model.name = std::string(name);
  model.dir = repository / model.name;
  if (!fs::is_directory(model.dir)) {
    fail(ErrorCode::kNotFound, "model '{}' is not in the repository {}", name, repository.string());
  }
  model.config = read_model_config(model.dir);
  std::vector<ModelVersion> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(model.dir)) {
    const std::optional<int64_t> version = version_number(entry.path().filename().string());
    if (!entry.is_directory() || !version) continue;
    if (const std::optional<fs::path> source = version_source(entry.path())) {
      found.push_back({*version, *source});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const ModelVersion& a, const ModelVersion& b) { return a.version < b.version; });
  std::vector<int64_t> available;
  for (const ModelVersion& version : found) available.push_back(version.version);
  for (int64_t version : select_versions(model.config.config.version_policy(), available)) {
    model.versions.push_back(*std::find_if(
        found.begin(), found.end(), [&](const ModelVersion& v) { return v.version == version; }));
  }
  if (model.versions.empty()) {
    fail(ErrorCode::kNotFound,
         "model '{}' has no version to serve: {} needs a folder 1, 2, ... holding model.json, "
         "model.onnx or model.pt{}",
         name, model.dir.string(), available.empty() ? "" : " that its version_policy selects");
  }
  return model;
}

}  // namespace inferlab::serve
