// The data-movement and shape operators of InferLab's reference kernels.
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {

void register_tensor_ops(OpRegistry& registry) {
  registry.add(reshape_kernel());
  registry.add(flatten_kernel());
  registry.add(squeeze_kernel());
  registry.add(unsqueeze_kernel());
  registry.add(identity_kernel());
  registry.add(transpose_kernel());
  registry.add(depth_to_space_kernel());
  registry.add(space_to_depth_kernel());
  registry.add(concat_kernel());
  registry.add(split_kernel());
  registry.add(slice_kernel());
  registry.add(gather_kernel());
  registry.add(gather_elements_kernel());
  registry.add(gather_nd_kernel());
  registry.add(scatter_elements_kernel());
  registry.add(scatter_nd_kernel());
  registry.add(expand_kernel());
  registry.add(tile_kernel());
  registry.add(pad_kernel());
  registry.add(shape_kernel());
  registry.add(size_kernel());
  registry.add(constant_of_shape_kernel());
  registry.add(constant_kernel());
  registry.add(range_kernel());
  registry.add(trilu_kernel());
  registry.add(topk_kernel());
  registry.add(non_max_suppression_kernel());
  registry.add(resize_kernel());
  registry.add(upsample_kernel());
}

}  // namespace inferlab::kernels::reference
