// Trilu (opset 14): keeps the upper (j - i >= k) or lower (j - i <= k)
// triangle of each matrix in the last two dims and zeroes the rest.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {

OpKernel trilu_kernel() {
  OpKernel kernel;
  kernel.op_type = "Trilu";
  kernel.min_opset = 14;
  kernel.infer = [](InferContext& ctx) {
    const ValueFacts& data = ctx.input(0);
    if (data.shape.size() < 2) {
      ctx.node().fail(ErrorCode::kInvalidArgument, "input must have rank >= 2, got {}",
                      shape_to_string(data.shape));
    }
    ctx.set_output(0, data.dtype, data.shape);
  };
  kernel.compute = [](KernelContext& ctx) {
    const NodeInfo& node = ctx.node();
    const Tensor& data = ctx.input(0);
    const Shape& shape = data.shape();
    if (shape.size() < 2) {
      node.fail(ErrorCode::kInvalidArgument, "input must have rank >= 2, got {}",
                shape_to_string(shape));
    }
    int64_t k = 0;
    if (ctx.has_input(1)) {
      const auto values = int64_values(node, ctx.input(1), "k");
      if (values.size() != 1) node.fail(ErrorCode::kInvalidArgument, "k must be a scalar");
      k = values[0];
    }
    // Beyond +-(rows + cols) every k means the same; clamping keeps j - i vs k exact.
    k = std::clamp<int64_t>(k, -(shape.back() + shape[shape.size() - 2]),
                            shape.back() + shape[shape.size() - 2]);
    const bool upper = node.attr_int("upper", 1) != 0;
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    const int64_t matrices = dims_product(shape, 0, shape.size() - 2);
    Tensor& out = ctx.output(0, data.dtype(), shape);
    visit_any_dtype(data.dtype(), node.op_type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = data.data<T>();
      T* dst = out.data<T>();
      for (int64_t m = 0; m < matrices; ++m) {
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < cols; ++j) {
            const int64_t at = (m * rows + i) * cols + j;
            const bool keep = upper ? j - i >= k : j - i <= k;
            dst[at] = keep ? in[at] : T{};
          }
        }
      }
    });
  };
  return kernel;
}

}  // namespace inferlab::kernels::reference
