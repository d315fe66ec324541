// Type-set checks for kernels (see element_types.h).
#include "inferlab/kernels/reference/element_types.h"

namespace inferlab::kernels::reference {

void check_input_type(const NodeInfo& node, size_t input_index, DataType dtype, TypeSet allowed) {
  const auto raw = static_cast<int>(dtype);
  if (raw < 0 || raw >= 32 || (allowed & type_bit(dtype)) == 0) {
    node.fail(ErrorCode::kInvalidModel, "input {} has element type {}, which {} does not accept",
              input_index, dtype_name(dtype), node.op_type());
  }
}

}  // namespace inferlab::kernels::reference
