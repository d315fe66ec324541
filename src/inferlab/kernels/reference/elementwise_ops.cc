#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {

void register_elementwise_ops(OpRegistry& registry) {}

}  // namespace inferlab::kernels::reference
