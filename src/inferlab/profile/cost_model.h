// Static cost of a node, from the shapes shape inference gives its values:
// FLOPs as 2 x the multiply-accumulates of the operators that do them
// (Conv, ConvTranspose, Gemm, MatMul, Einsum, their ai.inferlab / com.microsoft
// fused forms, and com.microsoft Attention); every other operator counts 0
// FLOPs. Bytes moved are the bytes of the inputs read plus the outputs
// written, the nominal traffic (caches hide re-reads; a view such as Reshape
// moves nothing); a Gather counts the elements it reads, not its whole data
// input (an embedding table). A value whose shape is not
// static makes the node's cost unknown.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "inferlab/model/graph.h"

namespace inferlab::profile {

struct NodeCost {
  bool known = false;  // every input and output had a static shape
  double flops = 0;
  double bytes = 0;
};

// `values`: type and shape of every value the node reads or writes, by name
// (runtime::ShapeInferenceResult::values, or a hand-made map in tests).
NodeCost node_cost(const model::Node& node,
                   const std::unordered_map<std::string, model::ValueInfo>& values);

// Multiply-accumulates of an Einsum with these operand shapes: the product of
// every label's size (and of the broadcast "..." dims) when two or more
// operands are contracted; 0 for a single operand (a transpose or a sum).
// Throws Error(kInvalidArgument) for an equation that does not fit the shapes.
double einsum_macs(const std::string& equation, const std::vector<Shape>& operand_shapes);

// Costs of every node of `graph`, by node name.
std::unordered_map<std::string, NodeCost> graph_costs(
    const model::Graph& graph, const std::unordered_map<std::string, model::ValueInfo>& values);

}  // namespace inferlab::profile
