// MatMul, Gemm and ai.inferlab FusedMatMul / FusedGemm on oneDNN's matmul
// primitive in planned runs: batch dims broadcast as numpy does (ranks are
// equalized with leading 1s), Gemm's transposes are strides, a constant B is
// prepacked once into the layout oneDNN picks, and the bias, Gemm's C and
// the activation are post-ops of the one call. The reference kernel runs
// without a plan and for what is not mapped: non-float types, 1-D operands,
// Gemm with alpha != 1 or beta != 1 (with a C).
#include <optional>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"
#include "inferlab/kernels/dnnl/packed_weights.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

enum class Form { kMatMul, kFusedMatMul, kGemm, kFusedGemm };

struct MatMulState : KernelState {
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

std::unique_ptr<KernelState> prepare_matmul(PrepareContext& ctx, Form form) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& a = ctx.input(0);
  const ValueFacts& b = ctx.input(1);
  const Shape& y = ctx.output(0).shape;
  if (a.dtype != DataType::kFloat32 || b.dtype != DataType::kFloat32 || a.shape.size() < 2 ||
      b.shape.size() < 2 || y.size() > 6 || ctx.output(0).dtype != DataType::kFloat32) {
    return nullptr;
  }
  const bool gemm = gemm_form(form);
  const bool has_addend = ctx.has_input(2);
  if (gemm && (node.attr_float("alpha", 1.0f) != 1.0f ||
               (has_addend && node.attr_float("beta", 1.0f) != 1.0f))) {
    return nullptr;
  }
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
  state->output_shape = y;
  arguments.emplace_back(DNNL_ARG_SRC, pd.src_desc());
  arguments.emplace_back(DNNL_ARG_WEIGHTS, pd.weights_desc());
  arguments.emplace_back(DNNL_ARG_DST, pd.dst_desc());
  arguments.emplace_back(DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc());
  if (state->bias != nullptr) arguments.emplace_back(DNNL_ARG_BIAS, pd.bias_desc());
  state->matmul = DnnlCall(dnnl::matmul(pd), arguments);
  return state;
}

void run_matmul(MatMulState& state, KernelContext& ctx) {
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

OpKernel with_dnnl(OpKernel kernel, Form form) {
  return on_dnnl<MatMulState>(
      std::move(kernel), [form](PrepareContext& ctx) { return prepare_matmul(ctx, form); },
      run_matmul);
}

}  // namespace

void add_dnnl_matmul_kernels(OpRegistry& registry) {
  registry.add(with_dnnl(reference::matmul_kernel(), Form::kMatMul));
  registry.add(with_dnnl(reference::gemm_kernel(), Form::kGemm));
  registry.add(with_dnnl(fused::fused_matmul_kernel(), Form::kFusedMatMul));
  registry.add(with_dnnl(fused::fused_gemm_kernel(), Form::kFusedGemm));
}

}  // namespace inferlab::kernels::dnnl_backend
