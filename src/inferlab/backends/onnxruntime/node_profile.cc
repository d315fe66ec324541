// Reading ONNX Runtime's per-run profile files (see node_profile.h).
#include "inferlab/backends/onnxruntime/node_profile.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "inferlab/core/error.h"

namespace inferlab::backends::ort {

namespace fs = std::filesystem;

namespace {

constexpr const char* kKernelTimeSuffix = "_kernel_time";
constexpr int64_t kNanosecondsPerMicrosecond = 1000;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string node_name(std::string name) {
  const std::string suffix = kKernelTimeSuffix;
  if (ends_with(name, suffix)) name.resize(name.size() - suffix.size());
  return name;
}

// Older ORT versions also log the synchronization around each kernel.
bool is_fence(const std::string& name) {
  return ends_with(name, "_fence_before") || ends_with(name, "_fence_after");
}

int64_t integer_field(const nlohmann::json& event, const char* key) {
  auto it = event.find(key);
  if (it == event.end()) return 0;
  if (it->is_number()) return it->get<int64_t>();
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

std::vector<NodeEvent> parse_trace(const std::string& json_text, const std::string& source) {
  const nlohmann::json trace = nlohmann::json::parse(json_text, nullptr, false);
  if (!trace.is_array()) {
    fail(ErrorCode::kRuntime, "onnxruntime: profile {} is not a JSON array of events", source);
  }
  std::vector<NodeEvent> events;
  for (const nlohmann::json& event : trace) {
    if (!event.is_object() || event.value("cat", "") != "Node") continue;
    if (is_fence(event.value("name", ""))) continue;
    NodeEvent node;
    node.node_name = node_name(event.value("name", ""));
    if (auto args = event.find("args"); args != event.end() && args->is_object()) {
      node.op_type = args->value("op_name", "");
    }
    node.start_ns = integer_field(event, "ts") * kNanosecondsPerMicrosecond;
    node.duration_ns = integer_field(event, "dur") * kNanosecondsPerMicrosecond;
    node.thread_id = integer_field(event, "tid");
    events.push_back(std::move(node));
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const NodeEvent& a, const NodeEvent& b) { return a.start_ns < b.start_ns; });
  return events;
}

}  // namespace

ProfileDirectory::ProfileDirectory() {
  std::string pattern = (fs::temp_directory_path() / "inferlab-ort-profile-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    fail(ErrorCode::kIo, "onnxruntime: cannot create a profile directory {}", pattern);
  }
  path_ = pattern;
}

ProfileDirectory::~ProfileDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string ProfileDirectory::next_prefix() { return path_ + "/run" + std::to_string(++runs_); }

std::vector<NodeEvent> ProfileDirectory::take_events(const std::string& prefix) {
  const std::string stem = fs::path(prefix).filename().string() + "_";
  for (const fs::directory_entry& entry : fs::directory_iterator(path_)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem, 0) != 0) continue;
    std::ifstream file(entry.path());
    std::stringstream text;
    text << file.rdbuf();
    file.close();
    std::error_code ignored;
    fs::remove(entry.path(), ignored);
    return parse_node_events(text.str(), entry.path().string());
  }
  fail(ErrorCode::kRuntime, "onnxruntime: the profiler wrote no file for {}", prefix);
}

std::vector<NodeEvent> parse_node_events(const std::string& json_text, const std::string& source) {
  try {
    return parse_trace(json_text, source);
  } catch (const nlohmann::json::exception& error) {
    fail(ErrorCode::kRuntime, "onnxruntime: profile {} is malformed: {}", source, error.what());
  }
}

}  // namespace inferlab::backends::ort
