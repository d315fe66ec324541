// How the fused kernels reuse the reference Conv, Gemm and MatMul: the base
// operator's own shape rule and compute run on the fused node's leading
// inputs (the extra attributes — activation, fused_nodes — are ignored by
// them), writing straight into the fused node's output; the fused kernel
// then adds its residual/bias and applies the activation in place.
#pragma once

#include <cstddef>

#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::fused {

// Runs `base`'s shape rule on inputs [0, count) of `ctx` and returns its
// output 0 (type and static shape); fails when the base leaves it unknown.
std::pair<DataType, Shape> infer_base(const OpKernel& base, InferContext& ctx, size_t count);

// Runs `base` on inputs [0, count) of `ctx`; its result is output 0 of `ctx`
// (allocated, or the buffer the runtime placed there), which is returned.
Tensor& compute_base(const OpKernel& base, KernelContext& ctx, size_t count);

// Fails unless `dtype` is float32 or float64 (the types activations support).
void require_float(const NodeInfo& node, DataType dtype);

// data[i] += other[i] over `count` elements, typed by `dtype` (float32/64).
void add_in_place(DataType dtype, void* data, const void* other, int64_t count);

}  // namespace inferlab::kernels::fused
