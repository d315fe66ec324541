// MatMul, Gemm and ai.inferlab FusedMatMul / FusedGemm on oneDNN's matmul
// primitive in planned runs: batch dims broadcast as numpy does (ranks are
// equalized with leading 1s), Gemm's transposes are strides, a constant B is
// prepacked once into the layout oneDNN picks, and the bias, Gemm's C and
// the activation are post-ops of the one call. The reference kernel runs
// without a plan and for what is not mapped: non-float types, 1-D operands,
// Gemm with alpha != 1 or beta != 1 (with a C). A product with one row of A
// and a constant B (the classifier of an image model at batch 1) runs on
// InferLab's gemv kernel instead (see Gemv), and one with a few rows and
// large constant weights on its panel_gemm kernel (panel_gemm.h).
#include <optional>

#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/dnnl/panel_gemm.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

enum class Form { kMatMul, kFusedMatMul, kGemm, kFusedGemm };

// y = x B (+ bias), then the activation, for one row x: B is packed as
// [N, K] rows and each output is a dot product streaming one of them, so the
// weights are read once at the speed memory delivers them. oneDNN 2.6's
// matmul took 0.66 ms at 1 thread for efficientnet_b0's 1280 x 1000
// classifier, reading its 5 MB of weights at 8 GB/s.
struct Gemv {
  const cpu::KernelTable* table = nullptr;  // set when this path is used
  std::shared_ptr<AlignedBytes> weights;    // [N, K]
  int64_t k = 0, n = 0;
  const float* bias = nullptr;  // a constant bias or Gemm C
  fused::Activation activation;
};

struct MatMulState : KernelState {
  std::string implementation() const override {
    if (panel) return "panel_gemm_f32:" + std::string(cpu::isa_name(panel->table->isa));
    return gemv.table != nullptr ? "gemv" : "";
  }
  Gemv gemv;
  std::optional<PanelGemm> panel;  // when set, the rest is unused
  DnnlCall matmul;
  std::shared_ptr<AlignedBytes> packed_b;  // null: B is bound per run
  const void* bias = nullptr;              // FusedMatMul's constant bias
  int addend_input = -1;                   // Gemm's C, or FusedMatMul's run-time bias
  size_t scratchpad_bytes = 0;
  Shape output_shape;
};

// `shape` with leading 1s up to `rank` dims.
Shape padded(const Shape& shape, size_t rank) {
  Shape result(rank - shape.size(), 1);
  result.insert(result.end(), shape.begin(), shape.end());
  return result;
}

// A 2-D [rows, columns] view of a stored [columns, rows] matrix (a Gemm
// operand with trans = 1): the same bytes, strides swapped.
dnnl::memory::desc transposed_desc(const Shape& stored) {
  return dnnl::memory::desc({stored[1], stored[0]}, dnnl::memory::data_type::f32,
                            dnnl::memory::dims{1, stored[1]});
}

// [..., M, K] x [K, N] with B free of batch dims (or all 1s) is one
// [rows, K] x [K, N] product, rows = the product of A's leading dims. oneDNN
// 2.6 prepacks B into its blocked layout for that 2-D form only: a 3-D
// [1, K, N] B keeps the plain layout, and [1, 128, 768] x [768, 3072] takes
// 8.1 ms at 1 thread against 4.0 ms folded (benchmarks/dnnl_forms). Returns
// the rows, or none.
std::optional<int64_t> folded_rows(const Shape& a, const Shape& b) {
  for (size_t i = 0; i + 2 < b.size(); ++i) {
    if (b[i] != 1) return std::nullopt;
  }
  if (a.size() <= 2 && b.size() <= 2) return std::nullopt;  // already 2-D
  if (a.back() == 0 || b.back() == 0) return std::nullopt;  // nothing to divide by
  return shape_numel(a) / a.back();
}

// The addend (bias, Gemm's C or a run-time addend) as oneDNN sees it: at the
// output's rank, or [1, N] for a folded product (FusedMatMul's bias is [N];
// Gemm is never folded); none for any other shape.
std::optional<Shape> addend_shape(const Shape& addend, const Shape& y,
                                  const std::optional<int64_t>& rows) {
  if (!rows) return padded(addend, y.size());
  if (addend.size() == 1 && addend[0] == y.back()) return Shape{1, y.back()};
  return std::nullopt;
}

bool gemm_form(Form form) { return form == Form::kGemm || form == Form::kFusedGemm; }

// Whether either prepared form computes the node: float32 throughout, and
// Gemm's alpha (and beta, with a C) 1.
bool mappable(const PrepareContext& ctx, Form form) {
  if (ctx.input(0).dtype != DataType::kFloat32 || ctx.input(1).dtype != DataType::kFloat32 ||
      ctx.output(0).dtype != DataType::kFloat32) {
    return false;
  }
  if (!gemm_form(form)) return true;
  const NodeInfo& node = ctx.node();
  return node.attr_float("alpha", 1.0f) == 1.0f &&
         (!ctx.has_input(2) || node.attr_float("beta", 1.0f) == 1.0f);
}

// The Gemv state when A is one row and B a constant matrix, else null.
std::unique_ptr<MatMulState> prepare_gemv(PrepareContext& ctx, Form form,
                                          const cpu::KernelTable& table) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& a = ctx.input(0);
  const ValueFacts& b = ctx.input(1);
  const Shape& y = ctx.output(0).shape;
  const bool gemm = gemm_form(form);
  for (size_t i = 0; i + 2 < b.shape.size(); ++i) {
    if (b.shape[i] != 1) return nullptr;
  }
  if (b.value == nullptr || b.shape.size() < 2) return nullptr;
  // B as stored: [K, N], or [N, K] for Gemm with transB.
  const bool trans_b = gemm && node.attr_int("transB", 0) != 0;
  const int64_t rows_b = b.shape[b.shape.size() - 2];
  const int64_t cols_b = b.shape.back();
  const int64_t k = trans_b ? cols_b : rows_b;
  const int64_t n = trans_b ? rows_b : cols_b;
  if (shape_numel(a.shape) != k || shape_numel(y) != n || k == 0 || n == 0) return nullptr;
  auto state = std::make_unique<MatMulState>();
  Gemv& g = state->gemv;
  if (ctx.has_input(2)) {
    const ValueFacts& addend = ctx.input(2);
    if (addend.value == nullptr || shape_numel(addend.shape) != n || addend.shape.back() != n) {
      return nullptr;
    }
    g.bias = addend.value->data<float>();
  }
  const dnnl::memory::dims dims{n, k};
  const dnnl::memory::desc stored(dims, dnnl::memory::data_type::f32,
                                  trans_b ? dnnl::memory::dims{k, 1} : dnnl::memory::dims{1, n});
  g.weights = packed_weights(
      ctx, 1, stored,
      dnnl::memory::desc(dims, dnnl::memory::data_type::f32, dnnl::memory::format_tag::ab));
  if (form == Form::kFusedMatMul || form == Form::kFusedGemm) {
    g.activation = fused::parse_activation(node);
  }
  g.table = &table;
  g.k = k;
  g.n = n;
  state->output_shape = y;
  return state;
}

void run_gemv(const MatMulState& state, KernelContext& ctx) {
  const Gemv& g = state.gemv;
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  const float* x = ctx.input(0).data<float>();
  const auto* w = reinterpret_cast<const float*>(g.weights->data());
  float* out = y.data<float>();
  cpu::parallel_ranges(g.n, g.k, 4, [&](int64_t begin, int64_t end) {
    g.table->gemv_f32(x, w, g.bias, out, g.k, begin, end);
  });
  fused::apply_activation(g.activation, out, g.n, g.table->isa);
}

std::unique_ptr<KernelState> prepare_matmul(PrepareContext& ctx, Form form) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& a = ctx.input(0);
  const ValueFacts& b = ctx.input(1);
  const Shape& y = ctx.output(0).shape;
  if (a.shape.size() < 2 || b.shape.size() < 2 || y.size() > 6) return nullptr;
  const bool gemm = gemm_form(form);
  const bool has_addend = ctx.has_input(2);
  const std::optional<int64_t> rows = gemm ? std::nullopt : folded_rows(a.shape, b.shape);
  // The shapes oneDNN sees: the folded 2-D product, or every operand at the
  // output's rank.
  const auto view = [&](const Shape& shape) {
    if (rows) return Shape{shape_numel(shape) / shape.back(), shape.back()};
    return padded(shape, y.size());
  };
  dnnl::memory::desc a_desc;
  dnnl::memory::desc b_desc;
  if (gemm) {
    a_desc = node.attr_int("transA", 0) != 0 ? transposed_desc(a.shape) : plain_desc(a.shape);
    b_desc = node.attr_int("transB", 0) != 0 ? transposed_desc(b.shape) : plain_desc(b.shape);
  } else {
    a_desc = plain_desc(view(a.shape));
    b_desc = plain_desc(view(b.shape));
  }
  const dnnl::memory::desc y_desc = plain_desc(view(y));
  const bool pack_b = b.value != nullptr;
  const dnnl::memory::desc b_wanted =
      pack_b ? dnnl::memory::desc(b_desc.dims(), dnnl::memory::data_type::f32,
                                  dnnl::memory::format_tag::any)
             : b_desc;
  auto state = std::make_unique<MatMulState>();
  dnnl::memory::desc bias_desc;
  dnnl::post_ops ops;
  std::vector<std::pair<int, dnnl::memory::desc>> arguments;
  if (has_addend) {
    const ValueFacts& addend = ctx.input(2);
    const std::optional<Shape> addend_view = addend_shape(addend.shape, y, rows);
    if (!addend_view) return nullptr;
    const Shape& addend_shape = *addend_view;
    if (form == Form::kFusedMatMul && addend.value != nullptr) {
      bias_desc = plain_desc(addend_shape);
      state->bias = addend.value->raw_data();
    } else {
      // Gemm's C (unidirectionally broadcast to [M, N]) or a run-time bias.
      ops.append_binary(dnnl::algorithm::binary_add, plain_desc(addend_shape));
      arguments.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                             plain_desc(addend_shape));
      state->addend_input = 2;
    }
  }
  if (form == Form::kFusedMatMul || form == Form::kFusedGemm) {
    append_activation(fused::parse_activation(node), ops);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::matmul::desc desc(a_desc, b_wanted, bias_desc, y_desc);
  const dnnl::matmul::primitive_desc pd(desc, attr, cpu_engine());
  if (pack_b) {
    state->packed_b = packed_weights(ctx, 1, b_desc, pd.weights_desc());
  }
  state->scratchpad_bytes = pd.scratchpad_desc().get_size();
  ctx.expect_scratch(state->scratchpad_bytes);
  state->output_shape = y;
  arguments.emplace_back(DNNL_ARG_SRC, pd.src_desc());
  arguments.emplace_back(DNNL_ARG_WEIGHTS, pd.weights_desc());
  arguments.emplace_back(DNNL_ARG_DST, pd.dst_desc());
  arguments.emplace_back(DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc());
  if (state->bias != nullptr) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state->matmul = DnnlCall(dnnl::matmul(pd), arguments);
  return state;
}

// The PanelGemm state when A has a few rows and B is large and constant,
// else null.
std::unique_ptr<MatMulState> prepare_panel(PrepareContext& ctx, Form form,
                                           const cpu::KernelTable& table) {
  const NodeInfo& node = ctx.node();
  PanelGemmOperands operands;
  operands.fused = form == Form::kFusedMatMul || form == Form::kFusedGemm;
  if (gemm_form(form)) {
    if (node.attr_int("transA", 0) != 0 || ctx.input(0).shape.size() != 2) return nullptr;
    operands.trans_b = node.attr_int("transB", 0) != 0;
  }
  auto panel = prepare_panel_gemm(ctx, operands, table);
  if (!panel) return nullptr;
  auto state = std::make_unique<MatMulState>();
  state->panel = std::move(panel);
  return state;
}

void run_matmul(MatMulState& state, KernelContext& ctx) {
  if (state.panel) return run_panel_gemm(*state.panel, ctx);
  if (state.gemv.table != nullptr) return run_gemv(state, ctx);
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  state.matmul.bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
  state.matmul.bind(DNNL_ARG_WEIGHTS,
                    state.packed_b ? state.packed_b->data() : ctx.input(1).raw_data());
  state.matmul.bind(DNNL_ARG_DST, y.raw_data());
  state.matmul.bind(DNNL_ARG_SCRATCHPAD, ctx.scratch_bytes(state.scratchpad_bytes));
  if (state.bias != nullptr) state.matmul.bind(DNNL_ARG_BIAS, state.bias);
  if (state.addend_input >= 0) {
    state.matmul.bind(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                      ctx.input(state.addend_input).raw_data());
  }
  state.matmul.execute(ctx.node());
}

OpKernel with_dnnl(OpKernel kernel, Form form, const cpu::KernelTable& table) {
  return on_dnnl<MatMulState>(
      std::move(kernel),
      [form, &table](PrepareContext& ctx) -> std::unique_ptr<KernelState> {
        if (!mappable(ctx, form)) return nullptr;  // the reference kernel handles it
        if (auto gemv = prepare_gemv(ctx, form, table)) return gemv;
        if (auto panel = prepare_panel(ctx, form, table)) return panel;
        return prepare_matmul(ctx, form);
      },
      run_matmul);
}

}  // namespace

void add_dnnl_matmul_kernels(OpRegistry& registry, const cpu::KernelTable& table) {
  registry.add(with_dnnl(reference::matmul_kernel(), Form::kMatMul, table));
  registry.add(with_dnnl(reference::gemm_kernel(), Form::kGemm, table));
  registry.add(with_dnnl(fused::fused_matmul_kernel(), Form::kFusedMatMul, table));
  registry.add(with_dnnl(fused::fused_gemm_kernel(), Form::kFusedGemm, table));
}

}  // namespace inferlab::kernels::dnnl_backend
