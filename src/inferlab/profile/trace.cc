// Chrome trace-event output of a profile (see trace.h).
#include "inferlab/profile/trace.h"

#include <fstream>
#include <unordered_map>

#include "inferlab/core/error.h"

namespace inferlab::profile {

namespace {

constexpr double kNanosecondsPerMicrosecond = 1000.0;
constexpr int kRunsTrack = 0;
// Pause drawn between consecutive runs, so they read apart on the timeline.
constexpr double kGapBetweenRunsUs = 10.0;

nlohmann::json metadata(const char* kind, int pid, int tid, const std::string& name) {
  return {{"ph", "M"}, {"name", kind}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

nlohmann::json node_args(const backends::NodeEvent& event, int run, const NodeStats* stats) {
  nlohmann::json args = {{"op_type", event.op_type}, {"run", run}};
  if (stats == nullptr) return args;
  if (!stats->covers.empty()) args["covers"] = stats->covers;
  if (stats->cost_known) {
    args["flops"] = stats->flops;
    args["bytes"] = stats->bytes;
  }
  return args;
}

void add_backend(nlohmann::json& events, const BackendProfile& profile, int pid) {
  events.push_back(metadata("process_name", pid, 0, profile.backend));
  events.push_back(metadata("thread_name", pid, kRunsTrack, "runs"));
  std::unordered_map<std::string, const NodeStats*> stats_of;
  for (const NodeStats& node : profile.nodes) stats_of.emplace(node.name, &node);
  std::unordered_map<int64_t, int> track_of;  // engine thread id -> tid
  double run_start_us = 0;
  for (size_t run = 0; run < profile.records.size(); ++run) {
    const RunRecord& record = profile.records[run];
    const double wall_us = static_cast<double>(record.wall_ns) / kNanosecondsPerMicrosecond;
    events.push_back({{"ph", "X"},
                      {"name", "run " + std::to_string(run + 1)},
                      {"cat", "run"},
                      {"pid", pid},
                      {"tid", kRunsTrack},
                      {"ts", run_start_us},
                      {"dur", wall_us}});
    for (const backends::NodeEvent& event : record.events) {
      auto [it, inserted] =
          track_of.emplace(event.thread_id, static_cast<int>(track_of.size()) + 1);
      if (inserted) {
        events.push_back(
            metadata("thread_name", pid, it->second, "thread " + std::to_string(event.thread_id)));
      }
      auto stats = stats_of.find(event.node_name);
      events.push_back(
          {{"ph", "X"},
           {"name", event.node_name},
           {"cat", event.op_type},
           {"pid", pid},
           {"tid", it->second},
           {"ts", run_start_us + static_cast<double>(event.start_ns) / kNanosecondsPerMicrosecond},
           {"dur", static_cast<double>(event.duration_ns) / kNanosecondsPerMicrosecond},
           {"args", node_args(event, static_cast<int>(run) + 1,
                              stats == stats_of.end() ? nullptr : stats->second)}});
    }
    run_start_us += wall_us + kGapBetweenRunsUs;
  }
}

}  // namespace

nlohmann::json trace_json(const ProfileResult& result) {
  nlohmann::json events = nlohmann::json::array();
  for (size_t i = 0; i < result.backends.size(); ++i)
    add_backend(events, result.backends[i], static_cast<int>(i) + 1);
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"model", result.options.model_path}, {"tool", "inferlab profile"}}}};
}

void write_trace(const ProfileResult& result, const std::string& path) {
  std::ofstream file(path, std::ios::binary);
  file << trace_json(result).dump() << "\n";
  if (!file) fail(ErrorCode::kIo, "profile: cannot write the trace file {}", path);
}

}  // namespace inferlab::profile
