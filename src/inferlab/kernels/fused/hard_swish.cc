// ai.inferlab::HardSwish (opset 1): ONNX-14 HardSwish,
// y = x * max(0, min(1, x / 6 + 1/2)), for models whose default opset is
// older (the optimizer's hardswish_fusion emits it there). It is the
// reference kernel of the ONNX operator under InferLab's domain, so both
// compute the same values.
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::fused {

OpKernel hard_swish_kernel() {
  OpKernel kernel = reference::hard_swish_kernel();
  kernel.domain = "ai.inferlab";
  kernel.min_opset = 1;
  kernel.max_opset = 1;
  return kernel;
}

}  // namespace inferlab::kernels::fused
