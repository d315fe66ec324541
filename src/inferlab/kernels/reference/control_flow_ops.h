// Registration of the control-flow reference kernels: one line per operator
// in control_flow_ops.cc. Their bodies are graph attributes that only the
// runtime can execute; the kernels reach them through
// KernelContext::subgraphs().run_subgraph(attribute_name, inputs).
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

void register_control_flow_ops(OpRegistry& registry);

OpKernel if_kernel();    // if.cc
OpKernel loop_kernel();  // loop.cc

}  // namespace inferlab::kernels::reference
