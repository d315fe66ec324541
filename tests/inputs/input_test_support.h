// Declared inputs for the inputs library's tests.
#pragma once

#include <string>
#include <vector>

#include "inferlab/model/graph.h"

namespace inferlab::inputs {

// `dims`: a number is a static dim, -1 a symbolic one named by `symbols` in turn.
inline model::ValueInfo declared(const std::string& name, DataType dtype,
                                 const std::vector<int64_t>& dims,
                                 const std::vector<std::string>& symbols = {}) {
  model::ValueInfo input;
  input.name = name;
  input.dtype = dtype;
  input.has_shape = true;
  size_t symbol = 0;
  for (int64_t dim : dims) {
    input.dims.push_back(dim >= 0 ? model::Dim::fixed(dim)
                                  : model::Dim::symbolic(symbol < symbols.size() ? symbols[symbol++]
                                                                                 : std::string()));
  }
  return input;
}

}  // namespace inferlab::inputs
