#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {

void register_tensor_ops(OpRegistry& registry) {}

}  // namespace inferlab::kernels::reference
