#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {

void register_nn_ops(OpRegistry& registry) {}

}  // namespace inferlab::kernels::reference
