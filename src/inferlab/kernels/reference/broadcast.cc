// Shape side of broadcasting; the iteration itself is the template in broadcast.h.
#include "inferlab/kernels/reference/broadcast.h"
#include "inferlab/kernels/reference/node_errors.h"

namespace inferlab::kernels::reference {

Shape broadcast_all(const NodeInfo& node, const std::vector<Shape>& shapes) {
  Shape result;
  for (const Shape& shape : shapes)
    result = naming_node(node, [&] { return broadcast_shapes(result, shape, "broadcast"); });
  return result;
}

Shape broadcast_all(const NodeInfo& node, std::initializer_list<Shape> shapes) {
  Shape result;
  for (const Shape& shape : shapes)
    result = naming_node(node, [&] { return broadcast_shapes(result, shape, "broadcast"); });
  return result;
}

Shape broadcast_strides(const Shape& input, const Shape& output) {
  Shape strides(output.size(), 0);
  const Shape dense = shape_strides(input);
  const size_t offset = output.size() - input.size();
  for (size_t i = 0; i < input.size(); ++i) {
    strides[offset + i] = input[i] == 1 ? 0 : dense[i];
  }
  return strides;
}

}  // namespace inferlab::kernels::reference
