// The fused operators' activations (docs/fused-ops.md) as oneDNN post-ops,
// so a fused node is one primitive call.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "inferlab/kernels/fused/activation.h"

namespace inferlab::kernels::dnnl_backend {

// Appends `activation` to `ops` (nothing for kNone). HardSigmoid, which
// oneDNN 2.6 lacks, is a linear step followed by a clip to [0, 1]; the
// activation_affine that may follow is one more linear step.
void append_activation(const fused::Activation& activation, dnnl::post_ops& ops);

}  // namespace inferlab::kernels::dnnl_backend
