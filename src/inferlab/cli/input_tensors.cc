// Input tensors for `inferlab run`; see input_tensors.h.
#include "inferlab/cli/input_tensors.h"

#include <cmath>
#include <fstream>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inferlab/cli/cli_common.h"
#include "inferlab/core/npy.h"
#include "inferlab/model/tensor_file.h"

namespace inferlab::cli {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

std::map<std::string, ValueRange> parse_range_flags(const std::vector<std::string>& texts) {
  std::map<std::string, ValueRange> ranges;
  for (const auto& [name, text] : parse_name_values("--input-range", texts)) {
    const std::string what = fmt::format("--input-range {}", name);
    const size_t colon = text.find(':');
    if (colon == std::string::npos)
      throw UsageError(fmt::format("{}: expected LO:HI, got '{}'", what, text));
    const ValueRange range{parse_number(text.substr(0, colon), what),
                           parse_number(text.substr(colon + 1), what)};
    if (!(range.low < range.high)) {
      throw UsageError(fmt::format("{}: LO must be below HI, got '{}'", what, text));
    }
    ranges[name] = range;
  }
  return ranges;
}

Tensor read_tensor_file(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy(path);
  if (ends_with(path, ".pb")) return model::read_tensor_pb(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kIo, "cannot open input file '{}'", path);
  char magic[6] = {};
  in.read(magic, sizeof(magic));
  const bool is_npy = in.gcount() == 6 && std::string(magic, 6) == "\x93NUMPY";
  return is_npy ? read_npy(path) : model::read_tensor_pb(path);
}

namespace {

// "dimension 2 ('height')" / "dimensions 2 ('height') and 3 ('width')".
std::string describe_symbolic_dims(const model::ValueInfo& input,
                                   const std::vector<size_t>& missing) {
  std::string text = missing.size() == 1 ? "dimension " : "dimensions ";
  for (size_t k = 0; k < missing.size(); ++k) {
    if (k > 0) text += k + 1 == missing.size() ? " and " : ", ";
    const model::Dim& dim = input.dims[missing[k]];
    text += std::to_string(missing[k]);
    if (!dim.symbol.empty()) text += fmt::format(" ('{}')", dim.symbol);
  }
  return text;
}

}  // namespace

Shape resolve_run_shape(const model::ValueInfo& input) {
  if (!input.has_shape) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}' has no declared shape; give it with --shape {}=DIMS or --input {}=FILE",
         input.name, input.name, input.name);
  }
  // A symbolic leading dim is the batch: run with 1. Any other symbolic dim
  // needs the user's number; the hint shows the shape to give, with the known
  // sizes filled in and a named placeholder where a number is missing.
  Shape shape;
  std::vector<size_t> missing;
  std::vector<std::string> example;
  for (size_t i = 0; i < input.dims.size(); ++i) {
    const model::Dim& dim = input.dims[i];
    const int64_t size = dim.is_static() ? dim.value : (i == 0 ? 1 : -1);
    shape.push_back(size);
    if (size < 0) missing.push_back(i);
    example.push_back(
        size >= 0 ? std::to_string(size)
                  : fmt::format("<{}>", dim.symbol.empty() ? fmt::format("dim{}", i) : dim.symbol));
  }
  if (!missing.empty()) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}': {} {} symbolic; give the full shape with --shape {}={}", input.name,
         describe_symbolic_dims(input, missing), missing.size() == 1 ? "is" : "are", input.name,
         fmt::join(example, ","));
  }
  return shape;
}

Tensor random_tensor(const model::ValueInfo& input, const Shape& shape, uint64_t seed,
                     size_t input_index, const std::optional<ValueRange>& range) {
  std::seed_seq seeds{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                      static_cast<uint32_t>(input_index)};
  std::mt19937_64 generator(seeds);
  Tensor tensor(input.dtype, shape);
  const DataType dtype = input.dtype;
  if (dtype == DataType::kString) {
    fail(ErrorCode::kUnsupported, "input '{}' holds strings; give it with --input {}=FILE",
         input.name, input.name);
  }
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16 || is_float_dtype(dtype)) {
    std::uniform_real_distribution<double> uniform(range ? range->low : 0.0,
                                                   range ? range->high : 1.0);
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      const double value = uniform(generator);
      if (dtype == DataType::kFloat32)
        tensor.data<float>()[i] = static_cast<float>(value);
      else if (dtype == DataType::kFloat64)
        tensor.data<double>()[i] = value;
      else if (dtype == DataType::kFloat16)
        tensor.data<Float16>()[i] = Float16::from_float(static_cast<float>(value));
      else
        tensor.data<BFloat16>()[i] = BFloat16::from_float(static_cast<float>(value));
    }
    return tensor;
  }
  if (dtype == DataType::kBool) {
    std::bernoulli_distribution coin(0.5);
    for (int64_t i = 0; i < tensor.numel(); ++i) tensor.data<bool>()[i] = coin(generator);
    return tensor;
  }
  const int64_t low = range ? static_cast<int64_t>(std::ceil(range->low)) : 0;
  const int64_t high = range ? static_cast<int64_t>(std::ceil(range->high)) - 1 : 99;
  std::uniform_int_distribution<int64_t> uniform(low, std::max(low, high));
  visit_dtype(dtype, input.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = tensor.data<T>();
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = static_cast<T>(uniform(generator));
  });
  return tensor;
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
