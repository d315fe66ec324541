// The delegation to the reference kernels behind the fused operators.
#include "inferlab/kernels/fused/base_kernel.h"

#include <cstring>
#include <vector>

namespace inferlab::kernels::fused {

std::pair<DataType, Shape> infer_base(const OpKernel& base, InferContext& ctx, size_t count) {
  std::vector<ValueFacts> facts;
  for (size_t i = 0; i < count && i < ctx.num_inputs(); ++i) {
    facts.push_back(ctx.has_input(i) ? ctx.input(i) : ValueFacts{});
  }
  InferContext inner(ctx.node(), std::move(facts), 1);
  base.infer(inner);
  const auto& output = inner.outputs().at(0);
  if (!output || !output->second) {
    ctx.node().fail(ErrorCode::kRuntime, "the {} shape rule left the output shape unknown",
                    base.op_type);
  }
  return {output->first, *output->second};
}

Tensor& compute_base(const OpKernel& base, KernelContext& ctx, size_t count) {
  // The base kernel writes this node's output 0 through a delegated context:
  // into the buffer the runtime placed there when its shape matches, with
  // this node's scratch, and without allocating anything of its own.
  KernelContext inner = ctx.delegate(count);
  base.compute(inner);
  Tensor& output = ctx.written_output(0);
  if (output.empty())
    ctx.node().fail(ErrorCode::kRuntime, "the {} kernel wrote no output", base.op_type);
  return output;
}

void require_float(const NodeInfo& node, DataType dtype) {
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64) {
    node.fail(ErrorCode::kUnsupported, "element type {} is not supported (float32, float64)",
              dtype_name(dtype));
  }
}

void add_in_place(DataType dtype, void* data, const void* other, int64_t count) {
  if (dtype == DataType::kFloat64) {
    double* y = static_cast<double*>(data);
    const double* z = static_cast<const double*>(other);
    for (int64_t i = 0; i < count; ++i) y[i] += z[i];
    return;
  }
  float* y = static_cast<float*>(data);
  const float* z = static_cast<const float*>(other);
  for (int64_t i = 0; i < count; ++i) y[i] += z[i];
}

}  // namespace inferlab::kernels::fused
