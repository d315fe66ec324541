// Kernels that run on oneDNN (Debian's libdnnl 2.6) in planned runs: each
// is its reference kernel with a prepare step that builds oneDNN primitives
// for the plan's shapes (see KernelState), falling back to the reference
// compute where there is no plan or oneDNN is not used for the case.
#pragma once

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::dnnl_backend {

// Conv and ai.inferlab FusedConv (dnnl_conv.cc); a FusedConv with few
// output channels runs on `table`'s narrow_conv_f32.
void add_dnnl_conv_kernels(OpRegistry& registry, const cpu::KernelTable& table);
// ConvTranspose (dnnl_conv_transpose.cc); block upsampling runs on `table`.
void add_dnnl_conv_transpose_kernel(OpRegistry& registry, const cpu::KernelTable& table);
// MatMul, Gemm, ai.inferlab FusedMatMul and FusedGemm (dnnl_matmul.cc);
// a product with one row of A runs on `table`'s gemv.
void add_dnnl_matmul_kernels(OpRegistry& registry, const cpu::KernelTable& table);
// com.microsoft::Attention's projection (dnnl_attention.cc).
void add_dnnl_attention_kernel(OpRegistry& registry, const cpu::KernelTable& table);
// MaxPool and AveragePool (dnnl_pool.cc).
void add_dnnl_pool_kernels(OpRegistry& registry);
void add_dnnl_transpose_kernel(OpRegistry& registry);

// Every oneDNN-backed kernel, over the ones already in `registry`; the few
// that also use InferLab's own vectorized code take `isa`'s kernel table.
void add_dnnl_kernels(OpRegistry& registry, cpu::Isa isa);

}  // namespace inferlab::kernels::dnnl_backend
