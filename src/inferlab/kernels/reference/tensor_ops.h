// Registration of the reference kernels of this area: one line per operator
// in tensor_ops.cc. Each factory lives in kernels/reference/<op>.cc.
#pragma once

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::reference {

void register_tensor_ops(OpRegistry& registry);

OpKernel reshape_kernel();              // reshape.cc
OpKernel flatten_kernel();              // reshape.cc
OpKernel squeeze_kernel();              // reshape.cc
OpKernel unsqueeze_kernel();            // reshape.cc
OpKernel identity_kernel();             // reshape.cc
OpKernel transpose_kernel();            // transpose.cc
OpKernel depth_to_space_kernel();       // transpose.cc
OpKernel space_to_depth_kernel();       // transpose.cc
OpKernel concat_kernel();               // concat_split.cc
OpKernel split_kernel();                // concat_split.cc
OpKernel slice_kernel();                // slice.cc
OpKernel gather_kernel();               // gather.cc
OpKernel gather_elements_kernel();      // gather.cc
OpKernel gather_nd_kernel();            // gather.cc
OpKernel scatter_elements_kernel();     // scatter.cc
OpKernel scatter_nd_kernel();           // scatter.cc
OpKernel expand_kernel();               // expand_tile.cc
OpKernel tile_kernel();                 // expand_tile.cc
OpKernel pad_kernel();                  // pad.cc
OpKernel shape_kernel();                // shape_ops.cc
OpKernel size_kernel();                 // shape_ops.cc
OpKernel constant_of_shape_kernel();    // shape_ops.cc
OpKernel constant_kernel();             // shape_ops.cc
OpKernel range_kernel();                // shape_ops.cc
OpKernel trilu_kernel();                // trilu.cc
OpKernel topk_kernel();                 // topk.cc
OpKernel non_max_suppression_kernel();  // non_max_suppression.cc
OpKernel resize_kernel();               // resize.cc
OpKernel upsample_kernel();             // resize.cc

}  // namespace inferlab::kernels::reference
