#include "inferlab/kernels/reference/control_flow_ops.h"

namespace inferlab::kernels::reference {

void register_control_flow_ops(OpRegistry& registry) {}

}  // namespace inferlab::kernels::reference
