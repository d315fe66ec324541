// Transpose, DepthToSpace and SpaceToDepth. The latter two are a reshape to
// six dims followed by a transpose, so all three are one permuted strided
// copy: output dim i reads the source with the stride of source dim perm[i].
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

Shape transpose_perm(const NodeInfo& node, size_t rank) {
  Shape perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  if (!node.has_attr("perm")) return perm;
  perm = node.attr_ints("perm");
  if (perm.size() != rank) {
    node.fail(ErrorCode::kInvalidModel, "perm has {} entries for an input of rank {}", perm.size(),
              rank);
  }
  Shape seen(rank, 0);
  for (int64_t& axis : perm) {
    axis = node_axis(node, axis, static_cast<int64_t>(rank));
    if (seen[static_cast<size_t>(axis)] != 0) {
      node.fail(ErrorCode::kInvalidModel, "perm repeats axis {}", axis);
    }
    seen[static_cast<size_t>(axis)] = 1;
  }
  return perm;
}

Shape permute(const Shape& shape, const Shape& perm) {
  Shape out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = shape[static_cast<size_t>(perm[i])];
  return out;
}

// Copies `data` viewed as `view_shape` (same element count), permuted by `perm`,
// into output 0 with `output_shape`.
void permuted_copy(KernelContext& ctx, const Tensor& data, const Shape& view_shape,
                   const Shape& perm, const Shape& output_shape) {
  const auto view_strides = shape_strides(view_shape);
  const Shape permuted = permute(view_shape, perm);
  const Shape strides = permute(view_strides, perm);
  Tensor& out = ctx.output(0, data.dtype(), output_shape);
  Tensor view = out.reshaped(permuted);
  strided_copy_tensor(data, 0, strides, view, ctx.node());
}

OpKernel make_transpose() {
  OpKernel kernel;
  kernel.op_type = "Transpose";
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    ctx.set_output(0, data.dtype,
                   permute(data.shape, transpose_perm(ctx.node(), data.shape.size())));
  };
  kernel.compute = [](KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const auto perm = transpose_perm(ctx.node(), data.shape().size());
    const Shape output_shape = permute(data.shape(), perm);
    permuted_copy(ctx, data, data.shape(), perm, output_shape);
  };
  return kernel;
}

// The 6-d view of the input, the permutation and the output shape of
// DepthToSpace (to_depth = false) or SpaceToDepth (to_depth = true).
struct BlockRearrangement {
  Shape view;
  Shape perm;
  Shape output;
};

BlockRearrangement block_rearrangement(const NodeInfo& node, const Shape& input, bool to_depth) {
  if (input.size() != 4) {
    node.fail(ErrorCode::kInvalidArgument, "input must be 4-D (N, C, H, W), got {}",
              shape_to_string(input));
  }
  const int64_t block = node.attr_int("blocksize");
  if (block <= 0) node.fail(ErrorCode::kInvalidModel, "blocksize {} must be positive", block);
  const int64_t n = input[0], c = input[1], h = input[2], w = input[3];
  if (to_depth) {
    if (h % block != 0 || w % block != 0) {
      node.fail(ErrorCode::kInvalidArgument, "H and W of {} are not multiples of blocksize {}",
                shape_to_string(input), block);
    }
    return {{n, c, h / block, block, w / block, block},
            {0, 3, 5, 1, 2, 4},
            {n, c * block * block, h / block, w / block}};
  }
  if (c % (block * block) != 0) {
    node.fail(ErrorCode::kInvalidArgument, "C of {} is not a multiple of blocksize^2 = {}",
              shape_to_string(input), block * block);
  }
  const int64_t depth = c / (block * block);
  const Shape output = {n, depth, h * block, w * block};
  if (node.attr_string("mode", "DCR") == "CRD") {
    return {{n, depth, block, block, h, w}, {0, 1, 4, 2, 5, 3}, output};
  }
  if (node.attr_string("mode", "DCR") != "DCR") {
    node.fail(ErrorCode::kInvalidModel, "unknown mode '{}'", node.attr_string("mode", ""));
  }
  return {{n, block, block, depth, h, w}, {0, 3, 4, 1, 5, 2}, output};
}

OpKernel make_block_kernel(const char* op_type, bool to_depth) {
  OpKernel kernel;
  kernel.op_type = op_type;
  kernel.infer = [to_depth](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    ctx.set_output(0, data.dtype, block_rearrangement(ctx.node(), data.shape, to_depth).output);
  };
  kernel.compute = [to_depth](KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const auto plan = block_rearrangement(ctx.node(), data.shape(), to_depth);
    permuted_copy(ctx, data, plan.view, plan.perm, plan.output);
  };
  return kernel;
}

}  // namespace

OpKernel transpose_kernel() { return make_transpose(); }
OpKernel depth_to_space_kernel() { return make_block_kernel("DepthToSpace", false); }
OpKernel space_to_depth_kernel() { return make_block_kernel("SpaceToDepth", true); }

}  // namespace inferlab::kernels::reference
