// Activations as oneDNN post-ops; see dnnl_post_ops.h.
#include "inferlab/kernels/dnnl/dnnl_post_ops.h"

#include <algorithm>

namespace inferlab::kernels::dnnl_backend {

namespace {

void append_kind(const fused::Activation& activation, dnnl::post_ops& ops) {
  using dnnl::algorithm;
  using fused::ActivationKind;
  const float a = activation.params[0];
  const float b = activation.params[1];
  switch (activation.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kRelu:
      return ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    case ActivationKind::kLeakyRelu:
      return ops.append_eltwise(1.0f, algorithm::eltwise_relu, a, 0.0f);
    case ActivationKind::kClip:
      return ops.append_eltwise(1.0f, algorithm::eltwise_clip, a, b);
    case ActivationKind::kSigmoid:
      return ops.append_eltwise(1.0f, algorithm::eltwise_logistic, 0.0f, 0.0f);
    case ActivationKind::kHardSigmoid:  // max(0, min(1, a x + b))
      ops.append_eltwise(1.0f, algorithm::eltwise_linear, a, b);
      return ops.append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, 1.0f);
    case ActivationKind::kHardSwish:
      return ops.append_eltwise(1.0f, algorithm::eltwise_hardswish, 0.0f, 0.0f);
    case ActivationKind::kTanh:
      return ops.append_eltwise(1.0f, algorithm::eltwise_tanh, 0.0f, 0.0f);
    case ActivationKind::kGelu:
      return ops.append_eltwise(1.0f, algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    case ActivationKind::kGeluTanh:
      return ops.append_eltwise(1.0f, algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    case ActivationKind::kSiLU:
      return ops.append_eltwise(1.0f, algorithm::eltwise_swish, 1.0f, 0.0f);
  }
}

}  // namespace

void append_activation(const fused::Activation& activation, dnnl::post_ops& ops) {
  if (activation.kind == fused::ActivationKind::kHardSigmoid && activation.has_affine()) {
    // clip(a x + b, 0, 1) * s + t is clip(a s x + b s + t) between t and
    // s + t: oneDNN 2.6 computed a linear step after the clip wrongly when
    // the chain also held the residual sum (a test caught it).
    const float s = activation.scale;
    const float t = activation.shift;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, activation.params[0] * s,
                       activation.params[1] * s + t);
    return ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, std::min(t, s + t),
                              std::max(t, s + t));
  }
  append_kind(activation, ops);
  if (activation.has_affine()) {
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, activation.scale, activation.shift);
  }
}

}  // namespace inferlab::kernels::dnnl_backend
