// If: runs then_branch or else_branch by a one-element boolean condition and
// returns that branch's outputs. The output types live in the branches, which
// only the runtime sees, so the shape rule leaves them to run time (the
// runtime's shape inference reads the branches' declared outputs instead).
#include "inferlab/kernels/reference/control_flow_ops.h"

namespace inferlab::kernels::reference {

namespace {

bool read_condition(const NodeInfo& node, const Tensor& condition) {
  if (condition.numel() != 1) {
    node.fail(ErrorCode::kInvalidArgument, "condition must hold one element, got shape {}",
              shape_to_string(condition.shape()));
  }
  if (condition.dtype() == DataType::kBool) return condition.data<bool>()[0];
  return condition.element_as_double(0) != 0.0;
}

void infer_if(InferContext& ctx) {
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output_dynamic(i, DataType::kUndefined);
}

void compute_if(KernelContext& ctx) {
  const bool condition = read_condition(ctx.node(), ctx.input(0));
  const std::string branch = condition ? "then_branch" : "else_branch";
  std::vector<Tensor> outputs = ctx.subgraphs().run_subgraph(branch, {});
  if (outputs.size() < ctx.num_outputs()) {
    ctx.node().fail(ErrorCode::kInvalidModel, "{} produced {} outputs, but the node has {}", branch,
                    outputs.size(), ctx.num_outputs());
  }
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, std::move(outputs[i]));
}

}  // namespace

OpKernel if_kernel() { return OpKernel{"If", 7, 18, infer_if, compute_if}; }

}  // namespace inferlab::kernels::reference
