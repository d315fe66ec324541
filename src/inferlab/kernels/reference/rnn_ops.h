// Registration of the reference kernels of this area (recurrent operators):
// one line per operator in rnn_ops.cc.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

OpKernel gru_kernel();   // gru.cc
OpKernel lstm_kernel();  // lstm.cc

void register_rnn_ops(OpRegistry& registry);

}  // namespace inferlab::kernels::reference
