// Input flags of `run`, `bench` and `profile`; see input_tensors.h.
#include "inferlab/cli/input_tensors.h"

#include <cmath>

#include <fmt/format.h>

#include "inferlab/cli/cli_common.h"

namespace inferlab::cli {

namespace {

double parse_number(const std::string& text, const std::string& what) {
  size_t consumed = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &consumed);
  } catch (const std::exception&) {
    consumed = 0;
  }
  if (text.empty() || consumed != text.size()) {
    throw UsageError(fmt::format("{}: '{}' is not a number", what, text));
  }
  return value;
}

template <typename T>
void fill_all(Tensor& tensor, T value) {
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = value;
}

}  // namespace

std::map<std::string, inputs::ValueRange> parse_range_flags(const std::vector<std::string>& texts) {
  std::map<std::string, inputs::ValueRange> ranges;
  for (const auto& [name, text] : parse_name_values(inputs::kRangeFlag, texts)) {
    const std::string what = fmt::format("--input-range {}", name);
    const size_t colon = text.find(':');
    if (colon == std::string::npos)
      throw UsageError(fmt::format("{}: expected LO:HI, got '{}'", what, text));
    const inputs::ValueRange range{parse_number(text.substr(0, colon), what),
                                   parse_number(text.substr(colon + 1), what)};
    if (!(range.low < range.high)) {
      throw UsageError(fmt::format("{}: LO must be below HI, got '{}'", what, text));
    }
    ranges[name] = range;
  }
  return ranges;
}

Tensor filled_tensor(const model::ValueInfo& input, const Shape& shape, const std::string& value) {
  const std::string what = fmt::format("--value {}", input.name);
  Tensor tensor(input.dtype, shape);
  switch (input.dtype) {
    case DataType::kString:
      fill_all<std::string>(tensor, value);
      return tensor;
    case DataType::kBool:
      if (value != "true" && value != "false" && value != "1" && value != "0") {
        throw UsageError(fmt::format("{}: '{}' is not a bool (true, false, 1 or 0)", what, value));
      }
      fill_all<bool>(tensor, value == "true" || value == "1");
      return tensor;
    case DataType::kFloat16:
      fill_all(tensor, Float16::from_float(static_cast<float>(parse_number(value, what))));
      return tensor;
    case DataType::kBFloat16:
      fill_all(tensor, BFloat16::from_float(static_cast<float>(parse_number(value, what))));
      return tensor;
    default:
      break;
  }
  const double number = parse_number(value, what);
  if (is_integer_dtype(input.dtype) && number != std::floor(number)) {
    throw UsageError(fmt::format("{}: '{}' is not an integer, but the input is {}", what, value,
                                 dtype_name(input.dtype)));
  }
  visit_dtype(input.dtype, input.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill_all<T>(tensor, static_cast<T>(number));
  });
  return tensor;
}

}  // namespace inferlab::cli
