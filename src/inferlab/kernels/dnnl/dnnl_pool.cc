// MaxPool and AveragePool on oneDNN (pooling_v2: dilated max pooling too),
// in planned runs; the reference kernel runs without a plan and for what is
// not mapped here: non-float types, MaxPool's Indices output, and an average
// pool counting padding with ceil_mode (where ONNX's window past the end
// does not count the padding ceil_mode adds, and oneDNN's would).
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

enum class PoolKind { kMax, kAverage };

struct PoolState : KernelState {
  DnnlCall pool;
  size_t scratchpad_bytes = 0;
  Shape output_shape;
};

std::unique_ptr<KernelState> prepare_pool(PrepareContext& ctx, PoolKind kind) {
  const NodeInfo& node = ctx.node();
  const ValueFacts& x = ctx.input(0);
  const bool ceil_mode = node.opset() >= 10 && node.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = node.attr_int("count_include_pad", 0) != 0;
  if (x.dtype != DataType::kFloat32 || x.shape.size() < 3 || x.shape.size() > 5 ||
      ctx.num_outputs() != 1 || (kind == PoolKind::kAverage && include_pad && ceil_mode)) {
    return nullptr;
  }
  reference::WindowOptions options;
  options.ceil_mode = ceil_mode;
  options.allow_dilations = kind == PoolKind::kMax;
  const reference::WindowGeometry g = reference::resolve_window(
      node, Shape(x.shape.begin() + 2, x.shape.end()), node.attr_ints("kernel_shape"), options);
  const Shape& y = ctx.output(0).shape;
  dnnl::memory::dims dilations;
  dnnl::memory::dims pads_end;
  for (size_t i = 0; i < g.rank(); ++i) {
    dilations.push_back(g.dilations[i] - 1);  // oneDNN counts the gaps
    // ceil_mode's last window reaches past the explicit padding.
    pads_end.push_back((g.output[i] - 1) * g.strides[i] + g.effective_kernel(i) - g.input[i] -
                       g.pads_begin[i]);
  }
  const dnnl::algorithm algorithm = kind == PoolKind::kMax ? dnnl::algorithm::pooling_max
                                    : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  const dnnl::pooling_v2_forward::desc desc(
      dnnl::prop_kind::forward_inference, algorithm, plain_desc(x.shape), plain_desc(y),
      to_dims(g.strides), to_dims(g.kernel), dilations, to_dims(g.pads_begin), pads_end);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, cpu_engine());
  auto state = std::make_unique<PoolState>();
  state->scratchpad_bytes = pd.scratchpad_desc().get_size();
  state->output_shape = y;
  state->pool =
      DnnlCall(dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, pd.src_desc()},
                                              {DNNL_ARG_DST, pd.dst_desc()},
                                              {DNNL_ARG_SCRATCHPAD, pd.scratchpad_desc()}});
  return state;
}

void run_pool(PoolState& state, KernelContext& ctx) {
  Tensor& y = ctx.output(0, DataType::kFloat32, state.output_shape);
  state.pool.bind(DNNL_ARG_SRC, ctx.input(0).raw_data());
  state.pool.bind(DNNL_ARG_DST, y.raw_data());
  state.pool.bind(DNNL_ARG_SCRATCHPAD, ctx.scratch_bytes(state.scratchpad_bytes));
  state.pool.execute(ctx.node());
}

OpKernel with_dnnl(OpKernel kernel, PoolKind kind) {
  return on_dnnl<PoolState>(
      std::move(kernel), [kind](PrepareContext& ctx) { return prepare_pool(ctx, kind); }, run_pool);
}

}  // namespace

void add_dnnl_pool_kernels(OpRegistry& registry) {
  registry.add(with_dnnl(reference::max_pool_kernel(), PoolKind::kMax));
  registry.add(with_dnnl(reference::average_pool_kernel(), PoolKind::kAverage));
}

}  // namespace inferlab::kernels::dnnl_backend
