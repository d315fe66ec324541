// Channels-last ("NHWC") tensors, which the layout pass (optimizer level 3)
// keeps between convolutions so oneDNN's convolutions read and write them
// directly. A channels-last tensor is an ordinary tensor whose shape is the
// physical one, [N, spatial..., C]: shape inference, the memory planner and
// every layout-agnostic kernel (activations, same-shape binary ops) need no
// change. Only operators that know where the channels are have
// channels-last forms: ai.inferlab FusedConv with `channels_last = 1`, and
// NhwcMaxPool, NhwcAveragePool and NhwcGlobalAveragePool (docs/fused-ops.md).
// Their reference kernels transpose to channels-first, run the standard
// operator's reference kernel and transpose back: slow, but exactly the
// standard operator's semantics; the oneDNN kernels compute in place.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::layout {

// [N, C, d...] -> [N, d..., C], and back. Rank < 3 is returned unchanged.
Shape to_channels_last(const Shape& channels_first);
Shape to_channels_first(const Shape& channels_last);

// Copies `x` (channels-last when `to_first`, else channels-first) into `y`
// in the other layout; both hold the same elements of `element_bytes` each.
void transpose_channels(const void* x, void* y, const Shape& x_shape, size_t element_bytes,
                        bool to_first);

// `base`'s shape rule run for a channels-last node: the inputs listed in
// `layout_inputs` are seen channels-first, every output is made
// channels-last again. `base_node` is the node as `base` sees it (the
// standard operator at its newest opset); null: the node itself.
void infer_channels_last(const InferFunction& base, InferContext& ctx,
                         std::initializer_list<size_t> layout_inputs,
                         const NodeInfo* base_node = nullptr);
// `base`'s compute run the same way (copies in and out: the reference path).
void compute_channels_last(const ComputeFunction& base, KernelContext& ctx,
                           std::initializer_list<size_t> layout_inputs,
                           const NodeInfo* base_node = nullptr);

// True when `node` has `channels_last = 1` (FusedConv); fails naming the
// node for another value.
bool is_channels_last(const NodeInfo& node);

// The node as the standard operator `op_type` at its newest opset, which is
// how the kernels of the standard operator see a channels-last node (the
// layout pass converts only nodes whose attributes mean the same there).
// Keeps references to `node`'s name and attributes and to `op_type`.
NodeInfo as_standard_node(const NodeInfo& node, const std::string& op_type);

// The node as the standard operator `op_type` at its newest opset, which is
// how the kernels of the standard operator see a channels-last node (the
// layout pass converts only nodes whose attributes mean the same there).
// Keeps references to `node`'s name and attributes and to `op_type`.
NodeInfo as_standard_node(const NodeInfo& node, const std::string& op_type);

// NhwcMaxPool, NhwcAveragePool and NhwcGlobalAveragePool (ai.inferlab,
// opset 1): the standard operators' attributes and semantics on
// channels-last tensors.
OpKernel nhwc_max_pool_kernel();
OpKernel nhwc_average_pool_kernel();
OpKernel nhwc_global_average_pool_kernel();
void register_channels_last_kernels(OpRegistry& registry);

}  // namespace inferlab::kernels::layout
