// Concat of any fixed-size type, one output row at a time: viewing the
// output as [outer, axis, inner], each of the `outer` rows is written front
// to back from every input's block in turn, and the rows are split over the
// team. The reference kernel copies input by input, so with small blocks
// (PaddleOCR concatenates four channels-last maps of 24 channels: 96-byte
// blocks) it passes over the whole output once per input and calls memmove
// per block; that took 2.6 ms for a 9.8 MB output. Strings, mixed types and
// every malformed case are left to the reference kernel and its errors.
#include <cstring>

#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/reference/tensor_op_util.h"

namespace inferlab::kernels::cpu {
namespace {

// Short blocks as 16-byte moves the compiler inlines; long ones by memcpy.
void copy_block(std::byte* dst, const std::byte* src, size_t bytes) {
  if (bytes >= 512) {
    std::memcpy(dst, src, bytes);
    return;
  }
  for (; bytes >= 16; bytes -= 16, dst += 16, src += 16) std::memcpy(dst, src, 16);
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

// The output shape when every input has input 0's type and rank and the
// same dims off `axis`; false otherwise (the reference kernel reports it).
bool concat_shape(const KernelContext& ctx, int64_t& axis, Shape& shape) {
  const Tensor& first = ctx.input(0);
  const int64_t rank = first.rank();
  axis = ctx.node().attr_int("axis", 0);
  if (axis < 0) axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank || first.dtype() == DataType::kString) return false;
  shape = first.shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return false;
    const Tensor& x = ctx.input(i);
    if (x.dtype() != first.dtype() || x.rank() != rank) return false;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && x.dim(d) != first.dim(d)) return false;
    }
    shape[static_cast<size_t>(axis)] += x.dim(axis);
  }
  return true;
}

bool concat_rows(KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return false;
  int64_t axis = 0;
  Shape shape;
  if (!concat_shape(ctx, axis, shape)) return false;
  const DataType dtype = ctx.input(0).dtype();
  Tensor& out = ctx.output(0, dtype, shape);
  const auto a = static_cast<size_t>(axis);
  const int64_t outer = reference::dims_product(shape, 0, a);
  const auto element = static_cast<int64_t>(dtype_size(dtype));
  const int64_t row_bytes = reference::dims_product(shape, a, shape.size()) * element;
  if (outer == 0 || row_bytes == 0) return true;
  auto* dst = static_cast<std::byte*>(out.raw_data());
  parallel_ranges(outer, row_bytes / element, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      std::byte* row = dst + r * row_bytes;
      for (size_t i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& x = ctx.input(i);
        const int64_t block = x.numel() / outer * element;
        copy_block(row, static_cast<const std::byte*>(x.raw_data()) + r * block,
                   static_cast<size_t>(block));
        row += block;
      }
    }
  });
  return true;
}

}  // namespace

void add_concat_kernel(OpRegistry& registry) {
  replace_compute(registry, "", "Concat", concat_rows);
}

}  // namespace inferlab::kernels::cpu
