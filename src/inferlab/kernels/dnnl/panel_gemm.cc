// MatMul / Gemm on panel_gemm_f32; see panel_gemm.h.
#include "inferlab/kernels/dnnl/panel_gemm.h"

#include <omp.h>

#include <algorithm>

#include "inferlab/kernels/dnnl/packed_weights.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

// Up to here the weights dominate: each is used by few rows, and streaming
// them is what oneDNN leaves exposed. With more rows (a batch of
// sequences) oneDNN's blocking of A wins.
constexpr int64_t kMaxRows = 256;
// Weights that stay in L2 from one run to the next gain nothing from
// prefetching (and oneDNN's kernels are 5-10% faster than this one on
// weights in cache); in a model of a few megabytes of weights or more,
// each layer's are evicted by the others before the next run.
constexpr int64_t kMinWeightBytes = 256 << 10;
// Depth per pass over a thread's blocks: the rows of packed A it reads
// (384 KiB for 128 rows) and one block's weights for it stay in L2. With
// the whole depth of the encoder's 3072 -> 768 layer (1.5 MiB of A) a
// thread's L2 held neither, and at 2 threads it ran 13% slower than oneDNN.
constexpr int64_t kChunkDepth = 768;

// With `threads` computing, each takes a contiguous share of the blocks:
// they must share them evenly (a 960 -> 320 convolution's five blocks on
// two threads ran 1.24x oneDNN's time) and each share must still stream
// enough weights to gain. omp_get_max_threads() is the session's thread
// count while a plan is built (runtime/compute_threads.h).
bool qualifies(const cpu::PanelGemmShape& s, const cpu::KernelTable& table) {
  const int64_t block = table.panel_gemm_block;
  if (s.rows < 2 || s.rows > kMaxRows || s.depth <= 0 || s.columns % block != 0) return false;
  const int64_t threads = std::max(1, omp_get_max_threads());
  const int64_t blocks = s.columns / block;
  const int64_t weight_bytes = s.depth * s.columns * static_cast<int64_t>(sizeof(float));
  // With two threads streaming at once, a deep product with few columns
  // (resnet50's 2048 -> 512 and 3x3 512 -> 512 at 7x7) lost 5-13% to
  // oneDNN; wide ones (512 -> 2048) still gained 10-20%.
  if (threads > 1 && s.columns < s.depth) return false;
  return blocks % threads == 0 && weight_bytes / threads >= kMinWeightBytes;
}

// B's dims past leading 1s, when it has two.
std::optional<std::pair<int64_t, int64_t>> matrix_dims(const Shape& b) {
  if (b.size() < 2) return std::nullopt;
  for (size_t i = 0; i + 2 < b.size(); ++i) {
    if (b[i] != 1) return std::nullopt;
  }
  return std::make_pair(b[b.size() - 2], b.back());
}

}  // namespace

std::optional<PanelGemm> prepare_panel_viewed(PrepareContext& ctx, const cpu::PanelGemmShape& shape,
                                              const dnnl::memory::desc& weights_view,
                                              const cpu::KernelTable& table) {
  if (!qualifies(shape, table) || ctx.input(1).value == nullptr) return std::nullopt;
  const int64_t n = shape.columns;
  PanelGemm gemm;
  gemm.shape = shape;
  if (ctx.has_input(2)) {
    const ValueFacts& addend = ctx.input(2);
    if (addend.value == nullptr || addend.dtype != DataType::kFloat32 ||
        shape_numel(addend.shape) != n || addend.shape.back() != n) {
      return std::nullopt;
    }
    gemm.bias = addend.value->data<float>();
  } else {
    gemm.zero_bias.assign(static_cast<size_t>(n), 0.0f);
  }
  const dnnl::memory::dims dims = weights_view.dims();
  gemm.weights = packed_weights(ctx, 1, weights_view, plain_desc(Shape(dims.begin(), dims.end())));
  gemm.table = &table;
  ctx.expect_scratch(panel_gemm_scratch_bytes(gemm));
  return gemm;
}

std::optional<PanelGemm> prepare_panel_product(PrepareContext& ctx,
                                               const cpu::PanelGemmShape& shape, bool trans_b,
                                               const cpu::KernelTable& table) {
  // B as stored, read as [N / block][K][block]: a strided view oneDNN reorders.
  const int64_t k = shape.depth;
  const int64_t n = shape.columns;
  const int64_t block = table.panel_gemm_block;
  if (n % block != 0) return std::nullopt;
  const dnnl::memory::dims strides =
      trans_b ? dnnl::memory::dims{block * k, 1, k} : dnnl::memory::dims{block, n, 1};
  return prepare_panel_viewed(
      ctx, shape, dnnl::memory::desc({n / block, k, block}, dnnl::memory::data_type::f32, strides),
      table);
}

std::optional<PanelGemm> prepare_panel_gemm(PrepareContext& ctx, const PanelGemmOperands& operands,
                                            const cpu::KernelTable& table) {
  const ValueFacts& a = ctx.input(0);
  const auto dims = matrix_dims(ctx.input(1).shape);
  const Shape& y = ctx.output(0).shape;
  if (!dims || a.shape.empty() || y.empty()) return std::nullopt;
  const int64_t k = operands.trans_b ? dims->second : dims->first;
  const int64_t n = operands.trans_b ? dims->first : dims->second;
  if (k <= 0 || a.shape.back() != k || y.back() != n) return std::nullopt;
  auto gemm = prepare_panel_product(ctx, {shape_numel(a.shape) / k, k, n}, operands.trans_b, table);
  if (!gemm) return std::nullopt;
  if (operands.fused) gemm->activation = fused::parse_activation(ctx.node());
  gemm->output_shape = y;
  return gemm;
}

size_t panel_gemm_scratch_bytes(const PanelGemm& gemm) {
  const int64_t rows = gemm.table->panel_gemm_rows;
  const int64_t tiles = (gemm.shape.rows + rows - 1) / rows;
  return static_cast<size_t>(tiles * rows * gemm.shape.depth) * sizeof(float);
}

void run_panel_gemm(const PanelGemm& gemm, KernelContext& ctx) {
  Tensor& y = ctx.output(0, DataType::kFloat32, gemm.output_shape);
  auto* packed_a = static_cast<float*>(ctx.scratch_bytes(panel_gemm_scratch_bytes(gemm)));
  run_panel_product(gemm, ctx.input(0).data<float>(), y.data<float>(), packed_a);
}

namespace {

// This thread's blocks [begin, end): pass by pass over the depth, each
// block's call prefetching the next call's weights (the next block's
// chunk, or the first block's next chunk).
void compute_blocks(const PanelGemm& gemm, const float* packed_a, const float* bias, float* out,
                    int64_t begin, int64_t end) {
  const cpu::PanelGemmShape& s = gemm.shape;
  const cpu::KernelTable& table = *gemm.table;
  const auto* weights = reinterpret_cast<const float*>(gemm.weights->data());
  const int64_t block_floats = s.depth * table.panel_gemm_block;
  const auto chunk_bytes = [&](int64_t k0) {
    return (std::min(s.depth, k0 + kChunkDepth) - k0) * table.panel_gemm_block *
           static_cast<int64_t>(sizeof(float));
  };
  for (int64_t k0 = 0; k0 < s.depth; k0 += kChunkDepth) {
    const int64_t k1 = std::min(s.depth, k0 + kChunkDepth);
    for (int64_t block = begin; block < end; ++block) {
      const float* next = nullptr;
      int64_t next_bytes = 0;
      if (block + 1 < end) {
        next = weights + (block + 1) * block_floats + k0 * table.panel_gemm_block;
        next_bytes = chunk_bytes(k0);
      } else if (k1 < s.depth) {
        next = weights + begin * block_floats + k1 * table.panel_gemm_block;
        next_bytes = chunk_bytes(k1);
      }
      table.panel_gemm_f32(s, packed_a, weights, bias, out, block, k0, k1, next, next_bytes);
    }
  }
}

// The residual and the activation over columns [first, first + count) of
// every row, still in this thread's cache.
void finish_columns(const PanelGemm& gemm, const float* residual, float* out, int64_t first,
                    int64_t count) {
  const cpu::KernelTable& table = *gemm.table;
  const bool activation =
      gemm.activation.kind != fused::ActivationKind::kNone || gemm.activation.has_affine();
  if (!activation && residual == nullptr) return;
  const int64_t columns = gemm.shape.columns;
  for (int64_t r = 0; r < gemm.shape.rows; ++r) {
    float* row = out + r * columns + first;
    if (residual != nullptr) {
      table.binary_f32(cpu::BinaryKind::kAdd, row, residual + r * columns + first, row, count);
    }
    if (activation) fused::apply_activation(gemm.activation, row, count, table.isa);
  }
}

}  // namespace

void run_panel_product(const PanelGemm& gemm, const float* a, float* out, float* packed_a,
                       const float* residual) {
  const cpu::PanelGemmShape& s = gemm.shape;
  const cpu::KernelTable& table = *gemm.table;
  const int64_t tiles = (s.rows + table.panel_gemm_rows - 1) / table.panel_gemm_rows;
  const int64_t blocks = s.columns / table.panel_gemm_block;
  const float* bias = gemm.bias != nullptr ? gemm.bias : gemm.zero_bias.data();
  const int team = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), blocks));
  // Every thread packs a share of A, then computes a contiguous range of
  // blocks and finishes its columns.
#pragma omp parallel num_threads(team)
  {
    const int64_t threads = omp_get_num_threads();
    const int64_t me = omp_get_thread_num();
    table.panel_gemm_pack_f32(s, a, packed_a, tiles * me / threads, tiles * (me + 1) / threads);
#pragma omp barrier
    const int64_t begin = blocks * me / threads;
    const int64_t end = blocks * (me + 1) / threads;
    compute_blocks(gemm, packed_a, bias, out, begin, end);
    if (begin < end) {
      finish_columns(gemm, residual, out, begin * table.panel_gemm_block,
                     (end - begin) * table.panel_gemm_block);
    }
  }
}

}  // namespace inferlab::kernels::dnnl_backend
