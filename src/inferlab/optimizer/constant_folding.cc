// constant_folding (level 1): evaluates, ahead of running, every node whose
// inputs are all constants (non-overridable initializers, earlier folded
// results), and Shape/Size nodes whose input shape is static (shape
// subgraphs fold once input shapes are fixed), with the reference kernels;
// their outputs become initializers. Never folds nodes with subgraphs,
// random ops, graph outputs, or results larger than their inputs beyond a
// small allowance (Expand/ConstantOfShape/Tile would only bloat the model).
#include <algorithm>

#include "inferlab/kernels/kernel.h"
#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/pass_util.h"

namespace inferlab::optimizer {

namespace {

// A folded result may always be this large, and otherwise no larger than its inputs.
constexpr int64_t kFoldAllowanceBytes = int64_t{1} << 20;

bool reads_only_shape(const model::Node& node) {
  return (node.domain.empty() || node.domain == "ai.onnx") &&
         (node.op_type == "Shape" || node.op_type == "Size");
}

class ConstantFolding : public GraphPass {
 public:
  const char* name() const override { return "constant_folding"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      std::vector<Tensor> outputs;
      if (!try_evaluate(context, editor, context.graph().nodes[i], outputs)) continue;
      const model::Node node = context.graph().nodes[i];
      for (size_t k = 0; k < node.outputs.size(); ++k) {
        if (node.outputs[k].empty()) continue;
        const std::string constant = editor.add_constant(node.outputs[k], std::move(outputs[k]));
        editor.replace_all_uses(node.outputs[k], constant);
      }
      editor.remove_node(static_cast<int>(i));
      stats.record("folded " + node.op_type, node.name);
    }
    if (stats.changed()) editor.compact();
  }

 private:
  // Evaluates `node` when it can and should be folded; false otherwise.
  static bool try_evaluate(const PassContext& context, const GraphEditor& editor,
                           const model::Node& node, std::vector<Tensor>& outputs) {
    if (has_subgraph(node) || is_random_op(node) || node.outputs.empty()) return false;
    for (const std::string& output : node.outputs) {
      if (!output.empty() && editor.is_graph_output(output)) return false;
    }
    const kernels::OpKernel* kernel =
        context.registry.find(node.domain, node.op_type, node_opset(context, node));
    if (kernel == nullptr) return false;
    std::vector<Tensor> stand_ins(node.inputs.size());
    std::vector<const Tensor*> inputs;
    int64_t input_bytes = 0;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const std::string& input = node.inputs[k];
      if (input.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      if (const Tensor* value = editor.constant(input)) {
        inputs.push_back(value);
        input_bytes += static_cast<int64_t>(value->nbytes());
        continue;
      }
      const model::ValueInfo* info = context.static_info(input);
      if (!reads_only_shape(node) || info == nullptr) return false;
      // Shape/Size never read the data: a data-less stand-in of the right shape.
      stand_ins[k] = Tensor::borrow(info->dtype, info->static_shape(), nullptr);
      inputs.push_back(&stand_ins[k]);
    }
    if (!within_size_cap(context, node, input_bytes)) return false;
    const kernels::NodeInfo info(node.name, node.op_type, node_opset(context, node),
                                 node.attributes);
    outputs.assign(node.outputs.size(), Tensor());
    kernels::KernelContext kernel_context(info, inputs, outputs, nullptr, context.max_tensor_bytes);
    try {
      kernel->compute(kernel_context);
    } catch (const std::exception&) {
      return false;  // the same failure surfaces, with its message, when the model runs
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (!node.outputs[k].empty() && (k >= outputs.size() || outputs[k].empty())) return false;
    }
    return true;
  }

  // Outputs must have static shapes known before running, within the cap.
  static bool within_size_cap(const PassContext& context, const model::Node& node,
                              int64_t input_bytes) {
    int64_t output_bytes = 0;
    for (const std::string& output : node.outputs) {
      if (output.empty()) continue;
      const model::ValueInfo* info = context.static_info(output);
      if (info == nullptr || info->dtype == DataType::kUndefined) return false;
      output_bytes +=
          shape_numel(info->static_shape()) * static_cast<int64_t>(dtype_size(info->dtype));
    }
    // A Constant node's value is in the model already: moving it costs nothing.
    if (node.op_type == "Constant") return true;
    return output_bytes <= std::max(input_bytes, kFoldAllowanceBytes);
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_constant_folding_pass() {
  return std::make_unique<ConstantFolding>();
}

}  // namespace inferlab::optimizer
