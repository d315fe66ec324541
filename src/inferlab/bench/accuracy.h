// Accuracy next to speed: one backend's outputs against the reference
// backend's on the same inputs (../shared/methodology.md section 5).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/core/tensor.h"

namespace inferlab::bench {

struct Tolerance {
  // Pass when error (max|a-b| / max(1, max|ref|)) <= max_error ...
  double max_error = 1e-4;
  // ... and cosine similarity >= min_cosine.
  double min_cosine = 0.0;
};

// Methodology defaults: fp32 error 1e-4; fp16/bf16 error 1e-2; int8 cosine
// >= 0.99 (no error bound). Throws Error(kInvalidArgument) for other names.
Tolerance default_tolerance(const std::string& precision);

struct OutputAccuracy {
  std::string name;
  double cosine = 0;
  double max_abs = 0;
  double mean_abs = 0;
  double error = 0;         // the project's measure
  double max_relative = 0;  // max |a-b| / |ref| over elements with ref != 0
  // Class-score outputs only (rank >= 1, classes on the last axis, samples
  // on the rest): fractions of samples that agree. A top-1 disagreement
  // counts only where the reference's top-1 margin (best - second best)
  // exceeds tolerance.max_error * max(1, max|ref|); other samples count as agreeing.
  std::optional<double> top1_agreement;
  std::optional<double> top5_agreement;  // reference top-1 within actual top-5
  int64_t samples = 0;
  bool passed = false;
  std::string failure;  // why not passed: "error 3.2e-3 > 1e-4", "shape [1,10] vs [1,1000]"
};

// Compares float or integer tensors (integers converted to double); a dtype
// or shape mismatch is a failed comparison, not an exception.
OutputAccuracy compare_output(const std::string& name, const Tensor& actual,
                              const Tensor& reference, const Tolerance& tolerance,
                              bool class_scores);

nlohmann::json accuracy_json(const OutputAccuracy& accuracy);

}  // namespace inferlab::bench
