// A tensor seen as [outer, axis, inner] around one axis: the layout ArgMax,
// ArgMin, CumSum and Softmax walk.
#pragma once

#include <cstdint>

#include "inferlab/core/shape.h"

namespace inferlab::kernels::reference {

struct AxisLayout {
  int64_t outer = 1;  // product of the dims before the axis
  int64_t axis = 1;   // the axis' own size
  int64_t inner = 1;  // product of the dims after it (the axis' stride)
};

// `axis` must already be normalized into [0, rank).
inline AxisLayout axis_layout(const Shape& shape, int64_t axis) {
  AxisLayout layout;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    const int64_t dim = shape[static_cast<size_t>(d)];
    if (d < axis)
      layout.outer *= dim;
    else if (d == axis)
      layout.axis = dim;
    else
      layout.inner *= dim;
  }
  return layout;
}

}  // namespace inferlab::kernels::reference
