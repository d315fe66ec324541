// The activation every fused operator of docs/fused-ops.md may apply to its
// result, optionally followed by an affine map y * scale + shift: parsed
// once from the node's `activation` / `activation_params` /
// `activation_affine` attributes (validated: a known name, the right
// parameter counts), then
// applied in place over a float buffer with the same formulas as the
// reference kernels of the standalone operators, so a fused node computes
// what the chain it replaces computed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/kernels/cpu/isa.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::fused {

enum class ActivationKind {
  kNone,
  kRelu,
  kLeakyRelu,  // params: alpha
  kClip,       // params: min, max
  kSigmoid,
  kHardSigmoid,  // params: alpha, beta
  kHardSwish,
  kTanh,
  kGelu,      // exact: x * Phi(x) with erf
  kGeluTanh,  // tanh approximation
  kSiLU,      // x * sigmoid(x)
};

struct Activation {
  ActivationKind kind = ActivationKind::kNone;
  float params[2] = {0.0f, 0.0f};
  // Applied after the activation (`activation_affine` = [scale, shift]):
  // PaddleOCR's learnable affine blocks, a scalar Mul and Add after each
  // activation, ride along instead of making two passes of their own.
  float scale = 1.0f;
  float shift = 0.0f;
  bool has_affine() const { return scale != 1.0f || shift != 0.0f; }
};

// The kind named `name` ("" is kNone); nullopt when unknown.
std::optional<ActivationKind> activation_kind_from_name(const std::string& name);
// The attribute spelling of `kind` ("" for kNone).
const char* activation_name(ActivationKind kind);
// How many floats `activation_params` must hold for `kind`.
size_t activation_param_count(ActivationKind kind);

// Reads `activation`, `activation_params` and `activation_affine` of `node`;
// fails naming the node when the name is unknown or a parameter count is
// wrong.
Activation parse_activation(const NodeInfo& node);

// data[i] = act(data[i]) * scale + shift for i < count. The float version runs the
// vectorized kernels of kernels/cpu/ for the best ISA the CPU has (at most
// `isa` in the overload that takes one); apply_activation_reference is the
// scalar formula the fast path is tested against.
void apply_activation(const Activation& activation, float* data, int64_t count);
void apply_activation(const Activation& activation, float* data, int64_t count, cpu::Isa isa);
void apply_activation_reference(const Activation& activation, float* data, int64_t count);
void apply_activation(const Activation& activation, double* data, int64_t count);

}  // namespace inferlab::kernels::fused
