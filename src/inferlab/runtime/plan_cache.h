// The plan cache: a directory of plan files (plan_file.h), one per model,
// options and input-shape signature. A session with a cache directory looks
// its plan up before importing the model; a hit skips parsing and
// optimization, a miss (or a rejected file: truncated, corrupt, stale,
// foreign) builds the plan and saves it. The key covers the plan format, the
// build (library_build_identity), the kernels, the model's SHA-256, the
// options that change the plan, and the input shapes.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/core/shape.h"
#include "inferlab/model/graph.h"
#include "inferlab/runtime/plan_file.h"

namespace inferlab::runtime {

struct PlanCacheStatus {
  // "off", "loaded", "saved" (a miss, now saved), "rebuilt" (a rejected
  // file replaced; see detail), "unsaved" (built, but writing failed).
  std::string outcome = "off";
  std::string detail;    // why a file was rejected or could not be written
  std::string path;      // the plan file
  double lookup_ms = 0;  // key + read (+ checks) on a hit, key + failed read on a miss
  double save_ms = 0;
};

struct PlanKeyInputs {
  std::string model_path;
  int opt_level = 3;
  std::map<std::string, Shape> input_shapes;
  std::vector<std::string> extra_outputs;
  // The kernels the plan is prepared for: the instruction sets of InferLab's
  // kernels and of oneDNN's, which choose the prepacked weights' layouts.
  std::string kernels = "reference";
};

class PlanCache {
 public:
  explicit PlanCache(std::string directory);

  // The key and file path for a model and options. The model's SHA-256 is
  // remembered per (path, size, mtime, inode) under DIR/hashes, so an
  // unchanged file is hashed once.
  nlohmann::json key(const PlanKeyInputs& inputs) const;
  std::string path_for(const nlohmann::json& key) const;

  // True and fills `model` and `packed` (the prepacked weights, none when the
  // plan was saved before any was packed) on a hit; otherwise records the
  // reason (if a file was there) in `status` and returns false. Never throws
  // for a bad file.
  bool load(const nlohmann::json& key, model::Model& model, PackedNodes& packed,
            PlanCacheStatus& status) const;
  // Saves an optimized model and its prepacked weights; a failure to write
  // is recorded, not thrown.
  void save(const nlohmann::json& key, const model::Model& model, const PackedNodes& packed,
            PlanCacheStatus& status) const;

 private:
  std::string model_sha256(const std::string& path) const;

  std::string directory_;
};

}  // namespace inferlab::runtime
