// Einsum's fast path: a two-operand equation that is a batched matrix product
// runs as permute + blocked GEMM + permute.
#pragma once

#include <cstdint>
#include <vector>

#include "inferlab/core/tensor.h"

namespace inferlab::kernels::reference {

// Labels are Einsum's per-dim label ids (one per operand dim, output dims in
// order) and `sizes` the size of each label id. Writes `output` (already
// allocated with the output shape) and returns true when the equation has
// the form; returns false, writing nothing, otherwise.
bool einsum_as_batched_gemm(const std::vector<std::vector<int>>& input_labels,
                            const std::vector<int>& output_labels,
                            const std::vector<int64_t>& sizes,
                            const std::vector<const Tensor*>& inputs, Tensor& output);

}  // namespace inferlab::kernels::reference
