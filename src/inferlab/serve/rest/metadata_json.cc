#include "inferlab/serve/rest/metadata_json.h"

#include <google/protobuf/util/json_util.h>

#include "inferlab/serve/protocol/datatype.h"

namespace inferlab::serve {

const std::vector<std::string>& server_extensions() {
  static const std::vector<std::string> extensions = {"binary_tensor_data", "model_repository",
                                                      "model_configuration", "statistics",
                                                      "schedule_policy"};
  return extensions;
}

nlohmann::json server_metadata_json() {
#ifdef INFERLAB_VERSION_STRING
  const char* version = INFERLAB_VERSION_STRING;
#else
  const char* version = "unknown";
#endif
  return {{"name", "inferlab"}, {"version", version}, {"extensions", server_extensions()}};
}

namespace {

nlohmann::json tensor_metadata_json(const model::ValueInfo& info) {
  nlohmann::json shape = nlohmann::json::array();
  for (const model::Dim& dim : info.dims) shape.push_back(dim.is_static() ? dim.value : -1);
  return {{"name", info.name},
          {"datatype", std::string(kserve_datatype(info.dtype))},
          {"shape", shape}};
}

}  // namespace

nlohmann::json model_metadata_json(const std::vector<std::shared_ptr<ServedModel>>& versions,
                                   const ServedModel& chosen) {
  nlohmann::json version_names = nlohmann::json::array();
  for (const auto& served : versions) version_names.push_back(std::to_string(served->version()));
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& info : chosen.inputs()) inputs.push_back(tensor_metadata_json(info));
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& info : chosen.outputs()) outputs.push_back(tensor_metadata_json(info));
  return {{"name", chosen.name()},
          {"versions", version_names},
          {"platform", chosen.platform()},
          {"inputs", inputs},
          {"outputs", outputs}};
}

std::string model_config_json(const config::ModelConfig& config) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(config, &json, options);
  if (!status.ok()) {
    fail(ErrorCode::kRuntime, "model '{}': its config cannot be written as JSON: {}", config.name(),
         status.ToString());
  }
  return json;
}

nlohmann::json model_stats_json(const std::vector<std::shared_ptr<ServedModel>>& versions) {
  nlohmann::json stats = nlohmann::json::array();
  for (const auto& served : versions) {
    const InferenceStatistics statistics = served->scheduler().statistics();
    stats.push_back({{"name", served->name()},
                     {"version", std::to_string(served->version())},
                     {"last_inference", statistics.last_inference_ms},
                     {"inference_count", statistics.inference_count},
                     {"execution_count", statistics.execution_count},
                     {"inference_stats", inference_stats_json(statistics)},
                     {"batch_stats", nlohmann::json::array()}});
  }
  return {{"model_stats", stats}};
}

nlohmann::json repository_index_json(const std::vector<ModelState>& states) {
  nlohmann::json index = nlohmann::json::array();
  for (const ModelState& state : states) {
    nlohmann::json entry = {{"name", state.name}};
    if (state.version) entry["version"] = std::to_string(*state.version);
    if (!state.state.empty()) entry["state"] = state.state;
    if (!state.reason.empty()) entry["reason"] = state.reason;
    index.push_back(std::move(entry));
  }
  return index;
}

}  // namespace inferlab::serve
