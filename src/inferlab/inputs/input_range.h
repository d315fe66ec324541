// The one rule for the values a generated input takes, shared by `inferlab
// run`, `bench` and `profile`: the range given for the input
// (--input-range NAME=LO:HI) first, then the `range` the model directory's
// manifest gives it (docs/model-format.md), then the default by dtype:
// floats [0, 1), integers [0, 100). Booleans are fair coin flips whatever
// the range. An integer input takes the integers of [LO, HI): ceil(LO) up to
// the last integer below HI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "inferlab/backends/model_source.h"
#include "inferlab/model/graph.h"

namespace inferlab::inputs {

// [low, high) of an input's random values.
struct ValueRange {
  double low = 0.0;
  double high = 1.0;

  bool operator==(const ValueRange&) const = default;
};

// The flag named in the messages about given ranges.
inline constexpr const char* kRangeFlag = "--input-range";

// The default of `dtype`: [0, 100) for integers, [0, 1) otherwise.
ValueRange default_range(DataType dtype);

// The range of `input` by the rule above; `given` holds the --input-range ranges.
ValueRange input_range(const model::ValueInfo& input,
                       const std::map<std::string, ValueRange>& given,
                       const backends::ModelSource& source);

// Every input's range. Throws Error(kInvalidArgument) for a name in `given`
// that is not an input, or a range whose low is not below its high.
std::map<std::string, ValueRange> input_ranges(const std::vector<model::ValueInfo>& inputs,
                                               const std::map<std::string, ValueRange>& given,
                                               const backends::ModelSource& source);

// The integers an integer input takes, [first, last]; throws
// Error(kInvalidArgument) naming the input when `range` holds none.
std::pair<int64_t, int64_t> integer_bounds(const std::string& input_name, const ValueRange& range);

}  // namespace inferlab::inputs
