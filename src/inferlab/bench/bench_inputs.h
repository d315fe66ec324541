// The inputs every backend of a point runs on: fixed-seed random tensors in
// each input's valid range (from the model directory's manifest, else [0,1)
// for floats and [0,100) for integers), or .npy samples from a directory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inferlab/backends/backend.h"

namespace inferlab::bench {

// The concrete shape of each input: `fixed` first, then the declared dims,
// with `batch` (when set) or 1 for a leading symbolic dim. Throws naming the
// input and dim when another dim is unresolved, or when `batch` is asked of
// an input whose leading dim is static and different.
std::map<std::string, Shape> resolve_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                  const std::map<std::string, Shape>& fixed,
                                                  const std::optional<int64_t>& batch);

backends::TensorMap random_inputs(const std::vector<model::ValueInfo>& inputs,
                                  const std::map<std::string, Shape>& shapes,
                                  const backends::ModelSource& source, uint64_t seed);

// Samples from `dir`: for a one-input model every *.npy file is a sample;
// otherwise every subdirectory holds <input name>.npy. Sorted by name.
std::vector<backends::TensorMap> samples_from_directory(
    const std::string& dir, const std::vector<model::ValueInfo>& inputs);

}  // namespace inferlab::bench
