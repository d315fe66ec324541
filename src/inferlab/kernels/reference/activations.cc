// Activations with attributes (Elu, HardSigmoid, HardSwish, LeakyRelu, Selu,
// Softplus, Softsign, ThresholdedRelu): each functor reads its attributes,
// with ONNX's defaults, when built from the node; unary_kernel does the rest.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/unary_kernel.h"

namespace inferlab::kernels::reference {
namespace {

template <typename C>
concept Floating = std::is_floating_point_v<C>;

struct EluOp {
  float alpha;
  explicit EluOp(const NodeInfo& node) : alpha(node.attr_float("alpha", 1.0f)) {}
  template <Floating C>
  C operator()(C x) const {
    return x >= 0 ? x : static_cast<C>(alpha) * std::expm1(x);
  }
};

struct HardSigmoidOp {
  float alpha, beta;
  explicit HardSigmoidOp(const NodeInfo& node)
      : alpha(node.attr_float("alpha", 0.2f)), beta(node.attr_float("beta", 0.5f)) {}
  template <Floating C>
  C operator()(C x) const {
    return std::clamp(static_cast<C>(alpha) * x + static_cast<C>(beta), C{0}, C{1});
  }
};

struct HardSwishOp {
  explicit HardSwishOp(const NodeInfo&) {}
  template <Floating C>
  C operator()(C x) const {
    return x * std::clamp(x / C{6} + C{0.5}, C{0}, C{1});
  }
};

struct LeakyReluOp {
  float alpha;
  explicit LeakyReluOp(const NodeInfo& node) : alpha(node.attr_float("alpha", 0.01f)) {}
  template <Floating C>
  C operator()(C x) const {
    return x >= 0 ? x : static_cast<C>(alpha) * x;
  }
};

struct SeluOp {
  float alpha, gamma;
  explicit SeluOp(const NodeInfo& node)
      : alpha(node.attr_float("alpha", 1.67326319217681884765625f)),
        gamma(node.attr_float("gamma", 1.05070102214813232421875f)) {}
  template <Floating C>
  C operator()(C x) const {
    const C inner = x > 0 ? x : static_cast<C>(alpha) * std::expm1(x);
    return static_cast<C>(gamma) * inner;
  }
};

struct SoftplusOp {
  explicit SoftplusOp(const NodeInfo&) {}
  // log(1 + exp(x)) written so that exp never overflows.
  template <Floating C>
  C operator()(C x) const {
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};

struct SoftsignOp {
  explicit SoftsignOp(const NodeInfo&) {}
  template <Floating C>
  C operator()(C x) const {
    return x / (C{1} + std::fabs(x));
  }
};

struct ThresholdedReluOp {
  float alpha;
  explicit ThresholdedReluOp(const NodeInfo& node) : alpha(node.attr_float("alpha", 1.0f)) {}
  template <Floating C>
  C operator()(C x) const {
    return x > static_cast<C>(alpha) ? x : C{0};
  }
};

TypeSet floats(int64_t) { return kFloatTypes; }

}  // namespace

OpKernel hard_swish_kernel() { return unary_kernel<HardSwishOp>("HardSwish", 14, floats); }

std::vector<OpKernel> activation_kernels() {
  return {
      unary_kernel<EluOp>("Elu", 7, floats),
      unary_kernel<HardSigmoidOp>("HardSigmoid", 7, floats),
      hard_swish_kernel(),
      unary_kernel<LeakyReluOp>("LeakyRelu", 7, floats),
      unary_kernel<SeluOp>("Selu", 7, floats),
      unary_kernel<SoftplusOp>("Softplus", 7, floats),
      unary_kernel<SoftsignOp>("Softsign", 7, floats),
      unary_kernel<ThresholdedReluOp>("ThresholdedRelu", 10, floats),
  };
}

}  // namespace inferlab::kernels::reference
