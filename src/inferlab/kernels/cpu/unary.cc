// Fast float32 Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish, Tanh,
// Erf and Exp: the attributes (with ONNX's defaults) become UnaryParams, the
// table's unary_f32 does the rest. Other types go to the reference kernels.
#include <limits>

#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

bool run_unary(KernelContext& ctx, const KernelTable& table, UnaryKind kind, UnaryParams params) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat32) return false;
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  parallel_ranges(x.numel(), 1, 16, [&](int64_t begin, int64_t end) {
    table.unary_f32(kind, params, in + begin, out + begin, end - begin);
  });
  return true;
}

// Clip's bounds: attributes before opset 11, optional float32 scalar inputs
// from 11. False when a bound is not a one-element float32 tensor (the
// reference kernel reports it).
bool clip_bounds(const KernelContext& ctx, UnaryParams& params) {
  params.p0 = std::numeric_limits<float>::lowest();
  params.p1 = std::numeric_limits<float>::max();
  const NodeInfo& node = ctx.node();
  if (node.opset() < 11) {
    params.p0 = node.attr_float("min", params.p0);
    params.p1 = node.attr_float("max", params.p1);
    return true;
  }
  for (size_t i = 1; i < 3; ++i) {
    if (!ctx.has_input(i)) continue;
    const Tensor& bound = ctx.input(i);
    if (bound.dtype() != DataType::kFloat32 || bound.numel() != 1) return false;
    (i == 1 ? params.p0 : params.p1) = bound.data<float>()[0];
  }
  return true;
}

void add(OpRegistry& registry, const KernelTable& table, const char* op, UnaryKind kind,
         const char* p0_name = nullptr, float p0 = 0, const char* p1_name = nullptr, float p1 = 0) {
  replace_compute(registry, "", op, [&table, kind, p0_name, p0, p1_name, p1](KernelContext& ctx) {
    UnaryParams params{p0, p1};
    if (p0_name != nullptr) params.p0 = ctx.node().attr_float(p0_name, p0);
    if (p1_name != nullptr) params.p1 = ctx.node().attr_float(p1_name, p1);
    return run_unary(ctx, table, kind, params);
  });
}

}  // namespace

void add_unary_kernels(OpRegistry& registry, const KernelTable& table) {
  add(registry, table, "Relu", UnaryKind::kRelu);
  add(registry, table, "LeakyRelu", UnaryKind::kLeakyRelu, "alpha", 0.01f);
  add(registry, table, "Sigmoid", UnaryKind::kSigmoid);
  add(registry, table, "HardSigmoid", UnaryKind::kHardSigmoid, "alpha", 0.2f, "beta", 0.5f);
  add(registry, table, "HardSwish", UnaryKind::kHardSwish);
  // ONNX's HardSwish under InferLab's domain, for models older than opset 14.
  replace_compute(registry, "ai.inferlab", "HardSwish", [&table](KernelContext& ctx) {
    return run_unary(ctx, table, UnaryKind::kHardSwish, UnaryParams{});
  });
  add(registry, table, "Tanh", UnaryKind::kTanh);
  add(registry, table, "Erf", UnaryKind::kErf);
  add(registry, table, "Exp", UnaryKind::kExp);
  replace_compute(registry, "", "Clip", [&table](KernelContext& ctx) {
    UnaryParams params;
    return clip_bounds(ctx, params) && run_unary(ctx, table, UnaryKind::kClip, params);
  });
}

}  // namespace inferlab::kernels::cpu
