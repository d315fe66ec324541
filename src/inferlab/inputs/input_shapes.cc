// The shape rule of run, bench and profile; see input_shapes.h.
#include "inferlab/inputs/input_shapes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inferlab/core/error.h"
#include "inferlab/runtime/input_check.h"

namespace inferlab::inputs {

namespace {

// "dimension 2 ('height')" / "dimensions 2 ('height') and 3 ('width')".
std::string describe_dims(const model::ValueInfo& input, const std::vector<size_t>& missing) {
  std::string text = missing.size() == 1 ? "dimension " : "dimensions ";
  for (size_t k = 0; k < missing.size(); ++k) {
    if (k > 0) text += k + 1 == missing.size() ? " and " : ", ";
    const model::Dim& dim = input.dims[missing[k]];
    text += std::to_string(missing[k]);
    if (!dim.symbol.empty()) text += fmt::format(" ('{}')", dim.symbol);
  }
  return text;
}

// The leading dim: --batch when given (a static dim must agree), else its
// static size, else 1.
int64_t leading_size(const model::ValueInfo& input, std::optional<int64_t> batch) {
  const model::Dim& dim = input.dims[0];
  if (!batch) return dim.is_static() ? dim.value : 1;
  if (dim.is_static() && dim.value != *batch) {
    fail(ErrorCode::kInvalidArgument,
         "--batch {} asked of input '{}', whose batch dim is fixed at {} in the model ({})", *batch,
         input.name, dim.value, input.to_string());
  }
  return *batch;
}

}  // namespace

Shape resolve_input_shape(const model::ValueInfo& input, const std::map<std::string, Shape>& given,
                          std::optional<int64_t> batch) {
  if (auto it = given.find(input.name); it != given.end()) {
    runtime::apply_input_shape(input, it->second, kShapeFlag);
    return it->second;
  }
  if (!input.has_shape) {
    fail(ErrorCode::kInvalidArgument, "input '{}' has no declared shape; give it with {} {}=DIMS",
         input.name, kShapeFlag, input.name);
  }
  // The hint shows the whole shape to give: the known sizes filled in and a
  // named placeholder where a number is missing.
  Shape shape;
  std::vector<size_t> missing;
  std::vector<std::string> example;
  for (size_t i = 0; i < input.dims.size(); ++i) {
    const model::Dim& dim = input.dims[i];
    const int64_t size = i == 0 ? leading_size(input, batch) : dim.is_static() ? dim.value : -1;
    shape.push_back(size);
    if (size < 0) missing.push_back(i);
    example.push_back(
        size >= 0 ? std::to_string(size)
                  : fmt::format("<{}>", dim.symbol.empty() ? fmt::format("dim{}", i) : dim.symbol));
  }
  if (!missing.empty()) {
    fail(ErrorCode::kInvalidArgument,
         "input '{}': {} {} symbolic; give the full shape with {} {}={}", input.name,
         describe_dims(input, missing), missing.size() == 1 ? "is" : "are", kShapeFlag, input.name,
         fmt::join(example, ","));
  }
  return shape;
}

void check_given_shapes(const std::vector<model::ValueInfo>& inputs,
                        const std::map<std::string, Shape>& given) {
  runtime::apply_input_shapes(inputs, given, kShapeFlag);
}

std::map<std::string, Shape> resolve_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                  const std::map<std::string, Shape>& given,
                                                  std::optional<int64_t> batch) {
  check_given_shapes(inputs, given);
  std::map<std::string, Shape> shapes;
  for (const model::ValueInfo& input : inputs)
    shapes[input.name] = resolve_input_shape(input, given, batch);
  return shapes;
}

}  // namespace inferlab::inputs
