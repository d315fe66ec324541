// The JSON bodies of the server's non-inference answers: server and model
// metadata (OIP), model config (Triton's model_configuration), statistics
// (Triton's statistics) and the repository index (Triton's
// model_repository).
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/serve/manager/model_manager.h"

namespace inferlab::serve {

// The extensions GET /v2 lists.
const std::vector<std::string>& server_extensions();

nlohmann::json server_metadata_json();
// `versions`: every loaded version of the model; `chosen`: the one whose
// inputs and outputs are described.
nlohmann::json model_metadata_json(const std::vector<std::shared_ptr<ServedModel>>& versions,
                                   const ServedModel& chosen);
// Triton's field names (protobuf's JSON with the .proto's names).
std::string model_config_json(const config::ModelConfig& config);
nlohmann::json model_stats_json(const std::vector<std::shared_ptr<ServedModel>>& versions);
nlohmann::json repository_index_json(const std::vector<ModelState>& states);

}  // namespace inferlab::serve
