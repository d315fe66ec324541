// GraphExecutor's per-node record and its subgraph runner, shared by
// executor.cc (unplanned runs) and executor_plan.cc (planned runs).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/kernels/kernel.h"
#include "inferlab/runtime/executor.h"

namespace inferlab::runtime {

struct GraphExecutor::CompiledNode {
  struct Subgraph {
    std::unique_ptr<GraphExecutor> executor;
    std::vector<int> outer_slots;  // enclosing slots, in executor->outer_names() order
  };

  CompiledNode(const model::Node& source_node, const kernels::OpKernel& op_kernel, int64_t opset,
               std::shared_ptr<kernels::KernelState>& cache)
      : node(source_node),
        kernel(op_kernel),
        info(source_node.name, source_node.op_type, opset, source_node.attributes),
        node_cache(cache) {}

  const model::Node& node;
  const kernels::OpKernel& kernel;
  kernels::NodeInfo info;
  std::vector<int> input_slots;   // -1: omitted optional input
  std::vector<int> output_slots;  // -1: omitted optional output
  std::map<std::string, Subgraph> subgraphs;
  std::vector<int> consumed_slots;  // inputs and values its subgraphs read
  std::vector<int> release_after;   // slots whose last consumer this is
  bool folded = false;              // a Constant computed at construction
  // The kernel's per-node cache across run plans (PrepareContext::node_cache):
  // this node's entry of the executor's NodeCaches.
  std::shared_ptr<kernels::KernelState>& node_cache;
  // Per input: the node cache holds a prepacked copy of this constant input,
  // and every plan built so far reads that copy, never the input. Empty until
  // the node is first prepared.
  std::vector<bool> reads_packed;
};

// What an If/Loop kernel calls to run one of its node's bodies.
class GraphExecutor::SubgraphCaller : public kernels::SubgraphRunner {
 public:
  SubgraphCaller(GraphExecutor& owner, CompiledNode& node) : owner_(owner), node_(node) {}

  std::vector<Tensor> run_subgraph(const std::string& attribute_name,
                                   const std::vector<Tensor>& inputs) override {
    auto it = find(attribute_name);
    GraphExecutor& body = *it->second.executor;
    if (inputs.size() != body.graph().inputs.size()) {
      node_.info.fail(ErrorCode::kInvalidModel, "subgraph '{}' takes {} inputs, but {} are given",
                      attribute_name, body.graph().inputs.size(), inputs.size());
    }
    std::vector<const Tensor*> input_pointers;
    for (const Tensor& input : inputs) input_pointers.push_back(&input);
    std::vector<const Tensor*> outer;
    for (int slot : it->second.outer_slots) outer.push_back(&owner_.values_[slot]);
    return body.run(input_pointers, outer);
  }

  std::vector<kernels::SubgraphOutputType> subgraph_output_types(
      const std::string& attribute_name) const override {
    std::vector<kernels::SubgraphOutputType> types;
    for (const model::ValueInfo& output : find(attribute_name)->second.executor->graph().outputs) {
      kernels::SubgraphOutputType type;
      type.dtype = output.dtype;
      if (output.is_static()) type.shape = output.static_shape();
      types.push_back(std::move(type));
    }
    return types;
  }

 private:
  std::map<std::string, CompiledNode::Subgraph>::iterator find(
      const std::string& attribute_name) const {
    auto it = node_.subgraphs.find(attribute_name);
    if (it == node_.subgraphs.end()) {
      node_.info.fail(ErrorCode::kInvalidModel, "has no graph attribute '{}'", attribute_name);
    }
    return it;
  }

  GraphExecutor& owner_;
  CompiledNode& node_;
};

}  // namespace inferlab::runtime
