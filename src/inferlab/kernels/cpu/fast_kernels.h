// How a vectorized kernel replaces a reference one: it keeps the reference
// OpKernel (its shape rule and opset range) and wraps its compute function.
// The fast function handles what it can (float32, the layouts it knows) and
// returns true; otherwise the reference compute runs, so every other type,
// layout and every error message stays the reference kernel's.
#pragma once

#include <functional>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "inferlab/kernels/registry.h"

namespace inferlab::kernels::cpu {

// True when it computed the node; false: "not mine, run the reference".
using FastCompute = std::function<bool(KernelContext&)>;

// Replaces the compute of domain::op_type in `registry` (a copy of the
// reference registry) by `fast` with the reference as fallback. No-op when
// the registry has no such kernel.
void replace_compute(OpRegistry& registry, const char* domain, const char* op_type,
                     FastCompute fast);

// Every fast kernel of kernels/cpu/ for `isa`, added over the reference ones.
void add_fast_kernels(OpRegistry& registry, Isa isa);

// One registration function per file (unary.cc, binary.cc, softmax.cc,
// layer_normalization.cc, gelu.cc, resize.cc, concat.cc, batch_normalization.cc).
void add_unary_kernels(OpRegistry& registry, const KernelTable& table);
void add_binary_kernels(OpRegistry& registry, const KernelTable& table);
void add_softmax_kernel(OpRegistry& registry, const KernelTable& table);
void add_layer_normalization_kernels(OpRegistry& registry, const KernelTable& table);
void add_gelu_kernels(OpRegistry& registry, const KernelTable& table);
// Not vectorized (copies), so the same for every ISA: resize.cc, concat.cc.
void add_resize_kernel(OpRegistry& registry);
void add_concat_kernel(OpRegistry& registry);
// Channels-last global average pooling split by pixels: global_average_pool.cc.
void add_global_average_pool_kernel(OpRegistry& registry, const KernelTable& table);
// Memory-bound multiply-adds the compiler vectorizes: batch_normalization.cc.
void add_batch_normalization_kernel(OpRegistry& registry);

}  // namespace inferlab::kernels::cpu
