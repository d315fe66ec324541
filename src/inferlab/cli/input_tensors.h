// How `inferlab run` makes its inputs: read from .npy/.pb files, filled with
// one value (--value), or fixed-seed random (floats uniform in [0,1),
// integers in [0,100), bools fair coin flips, unless --input-range says
// otherwise), with the shape resolved from the model (a leading symbolic dim
// defaults to 1; any other unresolved dim is an error naming it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::cli {

struct ValueRange {
  double low = 0.0;
  double high = 1.0;
};

// Parses repeated "NAME=LO:HI"; throws UsageError when malformed or LO >= HI.
std::map<std::string, ValueRange> parse_range_flags(const std::vector<std::string>& texts);

// Reads a tensor from .npy or TensorProto .pb (by extension, else by content).
Tensor read_tensor_file(const std::string& path);

// The concrete shape to run `input` with; throws Error naming the input and
// the dim when a dim other than the leading one is unresolved.
Shape resolve_run_shape(const model::ValueInfo& input);

// Random contents from a generator seeded by (seed, input_index).
Tensor random_tensor(const model::ValueInfo& input, const Shape& shape, uint64_t seed,
                     size_t input_index, const std::optional<ValueRange>& range);

// Every element set to `value` (a number, or true/false for bool); throws
// UsageError when `value` does not parse as the input's dtype.
Tensor filled_tensor(const model::ValueInfo& input, const Shape& shape, const std::string& value);

}  // namespace inferlab::cli
