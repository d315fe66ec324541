// The recurrent operators' reference kernels (GRU, LSTM).
#include "inferlab/kernels/reference/rnn_ops.h"

namespace inferlab::kernels::reference {

void register_rnn_ops(OpRegistry& registry) {
  registry.add(gru_kernel());
  registry.add(lstm_kernel());
}

}  // namespace inferlab::kernels::reference
