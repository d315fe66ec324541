// The one rule for the concrete shape an input is run with, shared by
// `inferlab run`, `bench` and `profile`:
//   1. a shape given for the input (--shape NAME=DIMS) is used as it is, once
//      checked against the declared dims (rank, static sizes; the messages of
//      runtime::apply_input_shape, starting "--shape: input 'NAME'");
//   2. otherwise the declared dims: static sizes as declared; a symbolic
//      leading dim is the batch, --batch when given, else 1;
//   3. any other symbolic dim, or an input with no declared shape, is an
//      error naming the input, its dims, and the --shape flag to give, with
//      the known sizes filled in ("--shape x=1,3,<height>,<width>").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/core/shape.h"
#include "inferlab/model/graph.h"

namespace inferlab::inputs {

// The flag named in the messages about given shapes.
inline constexpr const char* kShapeFlag = "--shape";

// `given`: shapes by input name (--shape); `batch`: the leading symbolic
// dim's size (--batch), 1 when unset. Throws Error(kInvalidArgument) naming
// the input: a given shape that contradicts the declared dims, an unresolved
// dim, or a `batch` asked of an input whose leading dim is static and different.
Shape resolve_input_shape(const model::ValueInfo& input, const std::map<std::string, Shape>& given,
                          std::optional<int64_t> batch = std::nullopt);

// Every input's shape by the rule above, after check_given_shapes.
std::map<std::string, Shape> resolve_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                  const std::map<std::string, Shape>& given,
                                                  std::optional<int64_t> batch = std::nullopt);

// Throws Error(kInvalidArgument) for a name in `given` that is not an input,
// or a given shape that contradicts the input's declared dims.
void check_given_shapes(const std::vector<model::ValueInfo>& inputs,
                        const std::map<std::string, Shape>& given);

}  // namespace inferlab::inputs
