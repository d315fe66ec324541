// The command-line side of inputs, shared by `run`, `bench` and `profile`:
// parsing --input-range, and --value (run). The rules for shapes, ranges,
// seeds and files are the library's (src/inferlab/inputs/); this file only
// turns flags into their arguments, with usage errors (exit status 2).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/inputs/input_range.h"
#include "inferlab/model/graph.h"

namespace inferlab::cli {

// Parses repeated "NAME=LO:HI"; throws UsageError when malformed or LO >= HI.
std::map<std::string, inputs::ValueRange> parse_range_flags(const std::vector<std::string>& texts);

// Every element set to `value` (a number, or true/false for bool); throws
// UsageError when `value` does not parse as the input's dtype.
Tensor filled_tensor(const model::ValueInfo& input, const Shape& shape, const std::string& value);

}  // namespace inferlab::cli
