// Input shapes and input validation for a Session: fixing symbolic dims from
// SessionOptions::input_shapes at load, and checking the tensors given to
// run() against the inputs (name, dtype, rank, static dims, and one size per
// dim symbol), with messages that name the input, the expected and the actual.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::runtime {

// The graph's inputs with dims fixed from `shapes`. Throws Error(kInvalidArgument)
// for a name that is not an input, a wrong rank, or a size contradicting a static dim;
// each message starts with `source` (the model path, or the flag: "--shape").
std::vector<model::ValueInfo> apply_input_shapes(const model::Graph& graph,
                                                 const std::map<std::string, Shape>& shapes,
                                                 const std::string& source);
std::vector<model::ValueInfo> apply_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                 const std::map<std::string, Shape>& shapes,
                                                 const std::string& source);

// One input with its dims fixed to `shape`; the errors of apply_input_shapes.
// inputs::resolve_input_shape checks --shape through it, so a given shape is
// judged by one rule whether a Session or a command receives it.
model::ValueInfo apply_input_shape(const model::ValueInfo& input, const Shape& shape,
                                   const std::string& source);

// The concrete shapes of inputs whose dims are all known.
std::map<std::string, Shape> static_input_shapes(const std::vector<model::ValueInfo>& inputs);

// Inputs matched to run(): `positional` follows `inputs`; `overrides` holds
// the given tensors that replace overridable initializers.
struct MatchedInputs {
  std::vector<const Tensor*> positional;
  std::map<std::string, const Tensor*> overrides;
};

// Throws Error(kInvalidArgument) for a missing input, an unknown name, or a
// tensor whose dtype or shape does not fit.
MatchedInputs match_inputs(const std::vector<model::ValueInfo>& inputs,
                           const std::vector<model::ValueInfo>& overridable,
                           const std::map<std::string, Tensor>& given);

// Checks one tensor against its declaration (dtype, rank, static dims).
void check_input_tensor(const model::ValueInfo& declared, const Tensor& actual);

}  // namespace inferlab::runtime
