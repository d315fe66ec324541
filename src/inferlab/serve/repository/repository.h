// A model repository in Triton's layout: REPO/<model>/<version>/ holding
// model.json (an InferLab model directory), model.onnx or model.pt, beside
// the model's optional config (model_config.h). Reads what is on disk; what
// is loaded, and when, is the server's business.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "inferlab/serve/repository/model_config.h"

namespace inferlab::serve {

struct ModelVersion {
  int64_t version = 0;
  std::filesystem::path source;  // the model file, or the version folder for model.json
};

struct RepositoryModel {
  std::string name;
  std::filesystem::path dir;
  ModelConfigFile config;
  std::vector<ModelVersion> versions;  // those the version policy selects, ascending
};

// A model name as it comes from a URL or a flag must be one folder of the
// repository: 1-128 bytes of letters, digits, '_', '-' and '.', and not "."
// or "..". Throws kInvalidArgument naming it.
void check_model_name(std::string_view name);

// The model folders in `repository`, sorted (names that check_model_name
// refuses are skipped). Throws kNotFound when the repository is missing.
std::vector<std::string> list_models(const std::filesystem::path& repository);

// The model's config and the versions its policy selects (default: the
// latest one). Throws kNotFound for a model without a folder, and
// kNotFound for one with no loadable version, naming what a version
// folder must hold.
RepositoryModel read_repository_model(const std::filesystem::path& repository,
                                      std::string_view name);

// The versions of `available` (ascending) that `policy` selects.
std::vector<int64_t> select_versions(const config::ModelVersionPolicy& policy,
                                     const std::vector<int64_t>& available);

}  // namespace inferlab::serve
