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
  // The base's own shape rule gives the output shape, so the output slot the
  // runtime placed (a planned buffer) is used as it is.
  std::vector<ValueFacts> facts;
  std::vector<const Tensor*> inputs;
  for (size_t i = 0; i < count && i < ctx.num_inputs(); ++i) {
    const Tensor* input = ctx.has_input(i) ? &ctx.input(i) : nullptr;
    facts.push_back(input ? ValueFacts{input->dtype(), input->shape(), nullptr} : ValueFacts{});
    inputs.push_back(input);
  }
  InferContext shape_rule(ctx.node(), std::move(facts), 1);
  base.infer(shape_rule);
  const auto& inferred = shape_rule.outputs().at(0);
  if (!inferred || !inferred->second) {
    ctx.node().fail(ErrorCode::kRuntime, "the {} shape rule left the output shape unknown",
                    base.op_type);
  }
  Tensor& output = ctx.output(0, inferred->first, *inferred->second);
  std::vector<Tensor> inner_outputs{output};  // shares output's memory
  KernelContext inner(ctx.node(), std::move(inputs), inner_outputs);
  base.compute(inner);
  const Tensor& written = inner_outputs.at(0);
  if (written.raw_data() != output.raw_data()) {
    if (written.shape() != output.shape() || written.dtype() != output.dtype()) {
      ctx.node().fail(ErrorCode::kRuntime, "the {} kernel produced {}, its shape rule said {}",
                      base.op_type, shape_to_string(written.shape()),
                      shape_to_string(output.shape()));
    }
    std::memcpy(output.raw_data(), written.raw_data(), output.nbytes());
  }
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
