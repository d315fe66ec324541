// Per-node timing from ONNX Runtime's profiler. ORT (since 1.25) profiles a
// single Run when its RunOptions carry a profile prefix, and writes
// <prefix>_<timestamp>.json when that Run ends; so each profiled execute()
// gets a fresh prefix, and its file is read into NodeEvents and deleted at
// once. Times in the file are microseconds from the start of that Run.
#pragma once

#include <string>
#include <vector>

#include "inferlab/backends/backend.h"

namespace inferlab::backends::ort {

// A private temporary directory for profile files, removed with everything
// in it on destruction.
class ProfileDirectory {
 public:
  ProfileDirectory();
  ~ProfileDirectory();
  ProfileDirectory(const ProfileDirectory&) = delete;
  ProfileDirectory& operator=(const ProfileDirectory&) = delete;

  // A prefix no earlier run used.
  std::string next_prefix();
  // Reads the events of the run profiled under `prefix` and deletes its file;
  // throws Error(kRuntime) when ORT wrote none.
  std::vector<NodeEvent> take_events(const std::string& prefix);

 private:
  std::string path_;
  long long runs_ = 0;
};

// The "Node" events of an ORT profile (Chrome trace JSON), named after the
// node (without ORT's "_kernel_time" suffix), in start order.
std::vector<NodeEvent> parse_node_events(const std::string& json_text, const std::string& source);

}  // namespace inferlab::backends::ort
