#include "inferlab/kernels/reference/control_flow_ops.h"

namespace inferlab::kernels::reference {

void register_control_flow_ops(OpRegistry& registry) {
  registry.add(if_kernel());
  registry.add(loop_kernel());
}

}  // namespace inferlab::kernels::reference
