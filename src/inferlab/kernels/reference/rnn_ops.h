// Registration of the reference kernels of this area: one line per operator
// in rnn_ops.cc.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

void register_rnn_ops(OpRegistry& registry);

}  // namespace inferlab::kernels::reference
