#include "inferlab/kernels/reference/rnn_ops.h"

namespace inferlab::kernels::reference {

void register_rnn_ops(OpRegistry& registry) {}

}  // namespace inferlab::kernels::reference
