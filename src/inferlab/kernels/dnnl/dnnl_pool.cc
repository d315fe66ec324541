// MaxPool and AveragePool on oneDNN (pooling_v2: dilated max pooling too),
// in planned runs; the reference kernel runs without a plan and for what is
// not mapped here: non-float types, MaxPool's Indices output, and an average
// pool counting padding with ceil_mode (where ONNX's window past the end
// does not count the padding ceil_mode adds, and oneDNN's would). The
// channels-last forms of the layout pass (NhwcMaxPool, NhwcAveragePool,
// NhwcGlobalAveragePool) run on the same primitive with NHWC memory.
#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/window_geometry.h"

namespace inferlab::kernels::dnnl_backend {
namespace {

enum class PoolKind { kMax, kAverage, kGlobalAverage };
enum class Layout { kChannelsFirst, kChannelsLast };

struct PoolState : KernelState {
  DnnlCall pool;
  size_t scratchpad_bytes = 0;
  Shape output_shape;
};

// What a pooling primitive needs from the node's attributes, in oneDNN's
// terms (dilations and the end padding as oneDNN counts them).
struct PoolWindow {
  dnnl::memory::dims strides, kernel, dilations, pads_begin, pads_end;
};

PoolWindow global_window(const Shape& x) {
  PoolWindow window;
  for (size_t i = 2; i < x.size(); ++i) {
    window.strides.push_back(1);
    window.kernel.push_back(x[i]);
    window.dilations.push_back(0);
    window.pads_begin.push_back(0);
    window.pads_end.push_back(0);
  }
  return window;
}

PoolWindow attribute_window(const NodeInfo& node, const Shape& x, PoolKind kind, bool ceil_mode) {
  reference::WindowOptions options;
  options.ceil_mode = ceil_mode;
  options.allow_dilations = kind == PoolKind::kMax;
  const reference::WindowGeometry g = reference::resolve_window(
      node, Shape(x.begin() + 2, x.end()), node.attr_ints("kernel_shape"), options);
  PoolWindow window{to_dims(g.strides), to_dims(g.kernel), {}, to_dims(g.pads_begin), {}};
  for (size_t i = 0; i < g.rank(); ++i) {
    window.dilations.push_back(g.dilations[i] - 1);  // oneDNN counts the gaps
    // ceil_mode's last window reaches past the explicit padding.
    window.pads_end.push_back((g.output[i] - 1) * g.strides[i] + g.effective_kernel(i) -
                              g.input[i] - g.pads_begin[i]);
  }
  return window;
}

std::unique_ptr<KernelState> prepare_pool(PrepareContext& ctx, PoolKind kind, Layout layout) {
  const bool channels_last = layout == Layout::kChannelsLast;
  // A channels-last node is the standard operator at its newest opset.
  const NodeInfo node =
      channels_last ? layout::as_standard_node(ctx.node(), ctx.node().op_type()) : ctx.node();
  const ValueFacts& x_facts = ctx.input(0);
  const bool ceil_mode = node.opset() >= 10 && node.attr_int("ceil_mode", 0) != 0;
  const bool include_pad = node.attr_int("count_include_pad", 0) != 0;
  if (x_facts.dtype != DataType::kFloat32 || x_facts.shape.size() < 3 || x_facts.shape.size() > 5 ||
      ctx.num_outputs() != 1 || (kind == PoolKind::kAverage && include_pad && ceil_mode)) {
    return nullptr;
  }
  const Shape x = channels_last ? layout::to_channels_first(x_facts.shape) : x_facts.shape;
  const Shape y =
      channels_last ? layout::to_channels_first(ctx.output(0).shape) : ctx.output(0).shape;
  const PoolWindow w = kind == PoolKind::kGlobalAverage
                           ? global_window(x)
                           : attribute_window(node, x, kind, ceil_mode);
  const dnnl::algorithm algorithm = kind == PoolKind::kMax ? dnnl::algorithm::pooling_max
                                    : include_pad ? dnnl::algorithm::pooling_avg_include_padding
                                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  const auto desc_of = [&](const Shape& logical) {
    return channels_last ? channels_last_desc(logical) : plain_desc(logical);
  };
  const dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm,
                                            desc_of(x), desc_of(y), w.strides, w.kernel,
                                            w.dilations, w.pads_begin, w.pads_end);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  const dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, cpu_engine());
  auto state = std::make_unique<PoolState>();
  state->scratchpad_bytes = pd.scratchpad_desc().get_size();
  ctx.expect_scratch(state->scratchpad_bytes);
  state->output_shape = ctx.output(0).shape;
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

OpKernel with_dnnl(OpKernel kernel, PoolKind kind, Layout layout) {
  return on_dnnl<PoolState>(
      std::move(kernel),
      [kind, layout](PrepareContext& ctx) { return prepare_pool(ctx, kind, layout); }, run_pool);
}

}  // namespace

void add_dnnl_pool_kernels(OpRegistry& registry) {
  const Layout first = Layout::kChannelsFirst;
  const Layout last = Layout::kChannelsLast;
  registry.add(with_dnnl(reference::max_pool_kernel(), PoolKind::kMax, first));
  registry.add(with_dnnl(reference::average_pool_kernel(), PoolKind::kAverage, first));
  registry.add(with_dnnl(layout::nhwc_max_pool_kernel(), PoolKind::kMax, last));
  registry.add(with_dnnl(layout::nhwc_average_pool_kernel(), PoolKind::kAverage, last));
  registry.add(
      with_dnnl(layout::nhwc_global_average_pool_kernel(), PoolKind::kGlobalAverage, last));
}

}  // namespace inferlab::kernels::dnnl_backend
