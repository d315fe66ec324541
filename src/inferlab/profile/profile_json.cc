// The profile as a JSON document (docs/profile.md lists the fields).
#include <algorithm>

#include "inferlab/profile/profile.h"

namespace inferlab::profile {

namespace {

nlohmann::json node_json(const NodeStats& node) {
  nlohmann::json json = {
      {"name", node.name},   {"op_type", node.op_type},           {"covers", node.covers},
      {"calls", node.calls}, {"total_ms", node.total_ms},         {"mean_ms", node.mean_ms},
      {"share", node.share}, {"cost_known", node.cost_known},     {"flops", node.flops},
      {"bytes", node.bytes}, {"gflops_per_s", node.gflops_per_s}, {"gb_per_s", node.gb_per_s}};
  if (!node.bound.empty()) {
    json["bound"] = node.bound;
    json["peak_share"] = node.peak_share;
  }
  return json;
}

nlohmann::json op_type_json(const OpTypeStats& type) {
  return {{"op_type", type.op_type},     {"nodes", type.nodes},
          {"calls", type.calls},         {"total_ms", type.total_ms},
          {"share", type.share},         {"flops_per_run", type.flops},
          {"bytes_per_run", type.bytes}, {"gflops_per_s", type.gflops_per_s},
          {"gb_per_s", type.gb_per_s}};
}

nlohmann::json baseline_json(const BackendProfile& profile) {
  if (profile.baseline_ms.empty()) return nullptr;
  return {{"runs_ms", profile.baseline_ms},
          {"p50_ms", profile.baseline_p50_ms},
          {"kernel_to_baseline", profile.kernel_to_baseline},
          {"kernel_p50_to_baseline_p50", profile.kernel_p50_to_baseline_p50},
          {"overhead", profile.overhead},
          {"overhead_interval", {profile.overhead_low, profile.overhead_high}}};
}

nlohmann::json backend_json(const BackendProfile& profile, int top) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeStats& node : profile.nodes) nodes.push_back(node_json(node));
  nlohmann::json types = nlohmann::json::array();
  for (const OpTypeStats& type : profile.op_types) types.push_back(op_type_json(type));
  nlohmann::json hottest = nlohmann::json::array();
  for (size_t i = 0; i < profile.nodes.size() && i < static_cast<size_t>(std::max(0, top)); ++i)
    hottest.push_back(profile.nodes[i].name);
  return {
      {"backend", profile.backend},
      {"configuration", profile.configuration},
      {"runs", profile.runs},
      {"wall_ms",
       {{"p50", profile.wall_p50_ms}, {"mean", profile.wall_mean_ms}, {"runs", profile.wall_ms}}},
      {"kernel_ms",
       {{"p50", profile.kernel_p50_ms},
        {"mean", profile.kernel_mean_ms},
        {"runs", profile.kernel_ms}}},
      {"outside_kernels", {{"mean_ms", profile.outside_mean_ms}, {"share", profile.outside_share}}},
      {"baseline", baseline_json(profile)},
      {"flops_per_run", profile.flops_per_run},
      {"bytes_per_run", profile.bytes_per_run},
      {"gflops_per_s", profile.gflops_per_s},
      {"gb_per_s", profile.gb_per_s},
      {"peak_share", profile.peak_share},
      {"top", hottest},
      {"op_types", types},
      {"nodes", nodes}};
}

nlohmann::json cross_json(const CrossEngine& cross) {
  nlohmann::json types = nlohmann::json::array();
  for (const CrossOpRow& row : cross.op_types) {
    types.push_back(
        {{"op_type", row.op_type}, {"first_ms", row.first_ms}, {"second_ms", row.second_ms}});
  }
  nlohmann::json nodes = nlohmann::json::array();
  for (const CrossNodeRow& row : cross.nodes) {
    nodes.push_back({{"onnx_nodes", row.onnx_nodes},
                     {"first_nodes", row.first_nodes},
                     {"second_nodes", row.second_nodes},
                     {"first_ms", row.first_ms},
                     {"second_ms", row.second_ms}});
  }
  return {{"first", cross.first},
          {"second", cross.second},
          {"op_types", types},
          {"nodes", nodes},
          {"first_unmatched", cross.first_unmatched},
          {"second_unmatched", cross.second_unmatched},
          {"first_matched_share", cross.first_matched_share},
          {"second_matched_share", cross.second_matched_share}};
}

}  // namespace

nlohmann::json profile_json(const ProfileResult& result) {
  const ProfileOptions& options = result.options;
  nlohmann::json shapes = nlohmann::json::object();
  for (const auto& [name, shape] : result.input_shapes) shapes[name] = shape.to_vector();
  nlohmann::json profiles = nlohmann::json::array();
  for (const BackendProfile& profile : result.backends)
    profiles.push_back(backend_json(profile, options.top));
  nlohmann::json json = {{"schema", "inferlab.profile/1"}, {"model", options.model_path},
                         {"backends", options.backends},   {"threads", options.threads},
                         {"opt_level", options.opt_level}, {"runs", options.runs},
                         {"warmup", options.warmup},       {"settle_ms", options.settle_ms},
                         {"input_shapes", shapes},         {"peak", nullptr},
                         {"profiles", profiles},           {"cross_engine", nullptr}};
  if (options.peak) {
    json["peak"] = {{"gflops", options.peak->gflops},
                    {"gbps", options.peak->gbps},
                    {"source", options.peak->source}};
  }
  if (result.cross) json["cross_engine"] = cross_json(*result.cross);
  return json;
}

}  // namespace inferlab::profile
