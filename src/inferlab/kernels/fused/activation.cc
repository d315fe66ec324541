// The shared fused activation: one switch over the kind, one tight loop per
// kind (so the compiler vectorizes the simple ones), formulas identical to
// the reference Relu/Sigmoid/HardSwish/... kernels.
#include "inferlab/kernels/fused/activation.h"

#include <algorithm>
#include <cmath>

#include "inferlab/kernels/cpu/kernel_table.h"

namespace inferlab::kernels::fused {
namespace {

struct NamedKind {
  const char* name;
  ActivationKind kind;
  size_t params;
};

constexpr NamedKind kKinds[] = {
    {"", ActivationKind::kNone, 0},
    {"Relu", ActivationKind::kRelu, 0},
    {"LeakyRelu", ActivationKind::kLeakyRelu, 1},
    {"Clip", ActivationKind::kClip, 2},
    {"Sigmoid", ActivationKind::kSigmoid, 0},
    {"HardSigmoid", ActivationKind::kHardSigmoid, 2},
    {"HardSwish", ActivationKind::kHardSwish, 0},
    {"Tanh", ActivationKind::kTanh, 0},
    {"Gelu", ActivationKind::kGelu, 0},
    {"GeluTanh", ActivationKind::kGeluTanh, 0},
    {"SiLU", ActivationKind::kSiLU, 0},
};

const NamedKind& entry(ActivationKind kind) {
  for (const NamedKind& named : kKinds) {
    if (named.kind == kind) return named;
  }
  return kKinds[0];
}

// Two forms so that exp never overflows (as the reference Sigmoid).
template <typename T>
T sigmoid(T x) {
  if (x >= 0) return T{1} / (T{1} + std::exp(-x));
  const T e = std::exp(x);
  return e / (T{1} + e);
}

template <typename T>
T gelu_exact(T x) {
  return T{0.5} * x * (T{1} + std::erf(x * static_cast<T>(M_SQRT1_2)));
}

template <typename T>
T gelu_tanh(T x) {
  const T inner = static_cast<T>(0.7978845608028654) * (x + static_cast<T>(0.044715) * x * x * x);
  return T{0.5} * x * (T{1} + std::tanh(inner));
}

template <typename T, typename F>
void transform(T* data, int64_t count, F f) {
  for (int64_t i = 0; i < count; ++i) data[i] = f(data[i]);
}

template <typename T>
void apply_affine(const Activation& act, T* data, int64_t count) {
  if (!act.has_affine()) return;
  const auto scale = static_cast<T>(act.scale);
  const auto shift = static_cast<T>(act.shift);
  transform(data, count, [scale, shift](T x) { return x * scale + shift; });
}

template <typename T>
void apply_kind(const Activation& act, T* data, int64_t count) {
  const T p0 = static_cast<T>(act.params[0]);
  const T p1 = static_cast<T>(act.params[1]);
  switch (act.kind) {
    case ActivationKind::kNone:
      return;
    case ActivationKind::kRelu:
      return transform(data, count, [](T x) { return x > T{0} ? x : T{0}; });
    case ActivationKind::kLeakyRelu:
      return transform(data, count, [p0](T x) { return x >= 0 ? x : p0 * x; });
    case ActivationKind::kClip:
      return transform(data, count, [p0, p1](T x) { return std::min(std::max(x, p0), p1); });
    case ActivationKind::kSigmoid:
      return transform(data, count, [](T x) { return sigmoid(x); });
    case ActivationKind::kHardSigmoid:
      return transform(data, count, [p0, p1](T x) { return std::clamp(p0 * x + p1, T{0}, T{1}); });
    case ActivationKind::kHardSwish:
      return transform(data, count,
                       [](T x) { return x * std::clamp(x / T{6} + T{0.5}, T{0}, T{1}); });
    case ActivationKind::kTanh:
      return transform(data, count, [](T x) { return std::tanh(x); });
    case ActivationKind::kGelu:
      return transform(data, count, [](T x) { return gelu_exact(x); });
    case ActivationKind::kGeluTanh:
      return transform(data, count, [](T x) { return gelu_tanh(x); });
    case ActivationKind::kSiLU:
      return transform(data, count, [](T x) { return x * sigmoid(x); });
  }
}

}  // namespace

std::optional<ActivationKind> activation_kind_from_name(const std::string& name) {
  for (const NamedKind& named : kKinds) {
    if (name == named.name) return named.kind;
  }
  return std::nullopt;
}

const char* activation_name(ActivationKind kind) { return entry(kind).name; }

size_t activation_param_count(ActivationKind kind) { return entry(kind).params; }

Activation parse_activation(const NodeInfo& node) {
  // Read in place (no copies): fused kernels parse this on every run.
  static const std::string kNoActivation;
  static const std::vector<float> kNoParams;
  static const std::string kActivationKey = "activation";
  static const std::string kParamsKey = "activation_params";  // beyond small-string storage
  const std::string& name =
      node.has_attr(kActivationKey) ? node.attr(kActivationKey).s : kNoActivation;
  const std::optional<ActivationKind> kind = activation_kind_from_name(name);
  if (!kind) {
    node.fail(ErrorCode::kInvalidModel,
              "unknown activation '{}' (expected Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, "
              "HardSwish, Tanh, Gelu, GeluTanh or SiLU)",
              name);
  }
  const std::vector<float>& params =
      node.has_attr(kParamsKey) ? node.attr(kParamsKey).floats : kNoParams;
  const size_t expected = activation_param_count(*kind);
  if (params.size() != expected) {
    node.fail(ErrorCode::kInvalidModel, "activation '{}' takes {} activation_params, got {}", name,
              expected, params.size());
  }
  Activation activation;
  activation.kind = *kind;
  std::copy(params.begin(), params.end(), activation.params);
  static const std::string kAffineKey = "activation_affine";
  if (node.has_attr(kAffineKey)) {
    const std::vector<float>& affine = node.attr(kAffineKey).floats;
    if (affine.size() != 2) {
      node.fail(ErrorCode::kInvalidModel, "activation_affine takes [scale, shift], got {} values",
                affine.size());
    }
    activation.scale = affine[0];
    activation.shift = affine[1];
  }
  return activation;
}

namespace {

cpu::UnaryKind unary_kind(ActivationKind kind) {
  switch (kind) {
    case ActivationKind::kNone:
      return cpu::UnaryKind::kIdentity;
    case ActivationKind::kRelu:
      return cpu::UnaryKind::kRelu;
    case ActivationKind::kLeakyRelu:
      return cpu::UnaryKind::kLeakyRelu;
    case ActivationKind::kClip:
      return cpu::UnaryKind::kClip;
    case ActivationKind::kSigmoid:
      return cpu::UnaryKind::kSigmoid;
    case ActivationKind::kHardSigmoid:
      return cpu::UnaryKind::kHardSigmoid;
    case ActivationKind::kHardSwish:
      return cpu::UnaryKind::kHardSwish;
    case ActivationKind::kTanh:
      return cpu::UnaryKind::kTanh;
    case ActivationKind::kGelu:
      return cpu::UnaryKind::kGelu;
    case ActivationKind::kGeluTanh:
      return cpu::UnaryKind::kGeluTanh;
    case ActivationKind::kSiLU:
      return cpu::UnaryKind::kSiLU;
  }
  return cpu::UnaryKind::kIdentity;
}

}  // namespace

void apply_activation(const Activation& activation, float* data, int64_t count, cpu::Isa isa) {
  if (activation.kind != ActivationKind::kNone) {
    cpu::kernel_table(cpu::effective_isa(isa))
        .unary_f32(unary_kind(activation.kind), {activation.params[0], activation.params[1]}, data,
                   data, count);
  }
  apply_affine(activation, data, count);
}

void apply_activation(const Activation& activation, float* data, int64_t count) {
  // The fused kernels do not see the session's max_isa: the best the CPU has.
  apply_activation(activation, data, count, cpu::Isa::kAvx512);
}

void apply_activation_reference(const Activation& activation, float* data, int64_t count) {
  apply_kind<float>(activation, data, count);
  apply_affine<float>(activation, data, count);
}

void apply_activation(const Activation& activation, double* data, int64_t count) {
  apply_kind<double>(activation, data, count);
  apply_affine<double>(activation, data, count);
}

}  // namespace inferlab::kernels::fused
