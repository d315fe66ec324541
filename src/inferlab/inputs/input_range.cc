// The range rule of run, bench and profile; see input_range.h.
#include "inferlab/inputs/input_range.h"

#include <cmath>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::inputs {

namespace {

void check_range(const std::string& input_name, const ValueRange& range, const char* origin) {
  if (!(range.low < range.high) || !std::isfinite(range.low) || !std::isfinite(range.high)) {
    fail(ErrorCode::kInvalidArgument, "{} {}: the range [{}, {}) is empty or not finite", origin,
         input_name, range.low, range.high);
  }
}

std::string input_names(const std::vector<model::ValueInfo>& inputs) {
  std::string names;
  for (const model::ValueInfo& input : inputs) names += (names.empty() ? "" : ", ") + input.name;
  return names.empty() ? "none" : names;
}

}  // namespace

ValueRange default_range(DataType dtype) {
  return is_integer_dtype(dtype) ? ValueRange{0.0, 100.0} : ValueRange{0.0, 1.0};
}

ValueRange input_range(const model::ValueInfo& input,
                       const std::map<std::string, ValueRange>& given,
                       const backends::ModelSource& source) {
  if (auto it = given.find(input.name); it != given.end()) return it->second;
  for (const backends::InputSpec& spec : source.inputs) {
    if (spec.info.name == input.name && spec.range)
      return ValueRange{spec.range->first, spec.range->second};
  }
  return default_range(input.dtype);
}

std::map<std::string, ValueRange> input_ranges(const std::vector<model::ValueInfo>& inputs,
                                               const std::map<std::string, ValueRange>& given,
                                               const backends::ModelSource& source) {
  for (const auto& [name, range] : given) {
    bool found = false;
    for (const model::ValueInfo& input : inputs) found = found || input.name == name;
    if (!found) {
      fail(ErrorCode::kInvalidArgument,
           "{}: a range is given for '{}', which is not an input "
           "(inputs: {})",
           kRangeFlag, name, input_names(inputs));
    }
    check_range(name, range, kRangeFlag);
  }
  std::map<std::string, ValueRange> ranges;
  for (const model::ValueInfo& input : inputs)
    ranges[input.name] = input_range(input, given, source);
  return ranges;
}

std::pair<int64_t, int64_t> integer_bounds(const std::string& input_name, const ValueRange& range) {
  const double first = std::ceil(range.low);
  const double last = std::ceil(range.high) - 1.0;
  if (first > last) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}': the range [{}, {}) holds no integer, but the input is an integer tensor",
         input_name, range.low, range.high);
  }
  constexpr double kInt64Span = 9223372036854775808.0;  // 2^63
  if (first < -kInt64Span || last >= kInt64Span) {
    fail(ErrorCode::kInvalidArgument, "input '{}': the range [{}, {}) does not fit int64",
         input_name, range.low, range.high);
  }
  return {static_cast<int64_t>(first), static_cast<int64_t>(last)};
}

}  // namespace inferlab::inputs
