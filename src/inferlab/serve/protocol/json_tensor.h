// Tensor data as the protocol's JSON: "data" arrays, flattened or nested,
// in row-major order.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "inferlab/core/tensor.h"

namespace inferlab::serve {

// Writes `data` (a JSON array, nested or not, or a single value for a
// one-element tensor) into `tensor`, whose type and shape are already set.
// Throws kInvalidArgument naming `name` when the count differs from the
// shape's or a value does not fit the type (a fraction or out-of-range
// number for an integer type, a non-boolean for BOOL).
void fill_from_json(const nlohmann::json& data, Tensor& tensor, std::string_view name);

// The tensor's elements as a flat JSON array.
nlohmann::json tensor_to_json(const Tensor& tensor);

}  // namespace inferlab::serve
