// Small pieces shared by the transformer fusion kernels: the FP32-only
// check, the GELU formulas as ONNX Runtime writes them, one row of layer
// normalization, and the check of a 1-D per-channel parameter.
#pragma once

#include <cmath>
#include <cstdint>

#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::fused {

inline void require_float32(const NodeInfo& node, DataType dtype, const char* what) {
  if (dtype != DataType::kFloat32) {
    node.fail(ErrorCode::kUnsupported, "{} has type {}; only float32 is supported", what,
              dtype_name(dtype));
  }
}

// 0.5 x (1 + erf(x / sqrt(2))), the exact GELU.
inline float gelu_exact(float x) {
  return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
}

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), ONNX Runtime's FastGelu.
inline float gelu_tanh(float x) {
  constexpr float kAlpha = 0.7978845608028654f;  // sqrt(2 / pi)
  constexpr float kGamma = 0.044715f;
  return 0.5f * x * (1.0f + std::tanh(kAlpha * (x + kGamma * x * x * x)));
}

// Fails unless `param` is 1-D with `channels` elements (a per-channel bias).
inline void require_channel_vector(const NodeInfo& node, const Shape& param, int64_t channels,
                                   const char* what) {
  if (param.size() != 1 || param[0] != channels) {
    node.fail(ErrorCode::kInvalidArgument, "{} has shape {}; expected [{}] (the last dimension)",
              what, shape_to_string(param), channels);
  }
}

// Normalizes one row of n values: y = (x - mean) / sqrt(var + eps) * gamma + beta.
// Statistics in double so that long rows keep FP32 accuracy.
struct RowStats {
  double mean = 0;
  double inv_std = 0;
};
inline RowStats normalize_row(const float* x, int64_t n, const float* gamma, const float* beta,
                              double epsilon, float* y) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const double mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
  double squares = 0;
  for (int64_t i = 0; i < n; ++i) squares += (x[i] - mean) * (x[i] - mean);
  const double var = n > 0 ? squares / static_cast<double>(n) : 0.0;
  const double inv_std = 1.0 / std::sqrt(var + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const double scaled = (x[i] - mean) * inv_std * (gamma ? gamma[i] : 1.0f);
    y[i] = static_cast<float>(scaled + (beta ? beta[i] : 0.0f));
  }
  return RowStats{mean, inv_std};
}

}  // namespace inferlab::kernels::fused
