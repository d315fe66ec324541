// Accuracy of one backend's output against the reference backend's
// (../shared/methodology.md section 5). Every element is read as double, so
// float16/bfloat16/integer outputs use the same arithmetic as float32. A
// mismatch of any kind is reported as a failed comparison with a reason;
// only a programming error (none expected) would throw.
#include "inferlab/bench/accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

std::vector<double> values_as_double(const Tensor& tensor) {
  std::vector<double> values(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    values[static_cast<size_t>(i)] = tensor.element_as_double(i);
  }
  return values;
}

bool is_numeric(DataType dtype) {
  return is_float_dtype(dtype) || is_integer_dtype(dtype) || dtype == DataType::kBool;
}

// Rows and classes of a class-score tensor: classes on the last axis,
// samples on the rest; a 0-d tensor is one sample.
int64_t row_count(const Shape& shape) {
  int64_t rows = 1;
  for (size_t axis = 0; axis + 1 < shape.size(); ++axis) rows *= shape[axis];
  return rows;
}

// Identical non-finite values (NaN and NaN, +inf and +inf) agree; they are
// left out of the metrics because no difference can be computed for them.
bool same_non_finite(double a, double r) {
  if (std::isnan(a) && std::isnan(r)) return true;
  return std::isinf(a) && std::isinf(r) && a == r;
}

struct ElementMetrics {
  double max_abs = 0;
  double sum_abs = 0;
  double max_ref = 0;
  double max_relative = 0;
  double dot = 0, norm_actual = 0, norm_reference = 0;
  int64_t compared = 0;
  int64_t non_finite_mismatches = 0;
  int64_t first_non_finite = -1;
};

ElementMetrics measure(const std::vector<double>& actual, const std::vector<double>& reference) {
  ElementMetrics m;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double r = reference[i];
    if (!std::isfinite(a) || !std::isfinite(r)) {
      if (!same_non_finite(a, r)) {
        if (m.first_non_finite < 0) m.first_non_finite = static_cast<int64_t>(i);
        ++m.non_finite_mismatches;
      }
      continue;
    }
    const double diff = std::fabs(a - r);
    m.max_abs = std::max(m.max_abs, diff);
    m.sum_abs += diff;
    m.max_ref = std::max(m.max_ref, std::fabs(r));
    if (r != 0) m.max_relative = std::max(m.max_relative, diff / std::fabs(r));
    m.dot += a * r;
    m.norm_actual += a * a;
    m.norm_reference += r * r;
    ++m.compared;
  }
  return m;
}

// Cosine similarity; two all-zero tensors are identical (1), one all-zero
// tensor against a non-zero one shares no direction (0).
double cosine_of(const ElementMetrics& m) {
  if (m.norm_actual == 0 && m.norm_reference == 0) return 1.0;
  if (m.norm_actual == 0 || m.norm_reference == 0) return 0.0;
  // sqrt of the product is exact for identical tensors (sqrt(x * x) == x),
  // so they report a cosine of exactly 1; the split form avoids overflow.
  const double product = m.norm_actual * m.norm_reference;
  const double denominator = std::isfinite(product)
                                 ? std::sqrt(product)
                                 : std::sqrt(m.norm_actual) * std::sqrt(m.norm_reference);
  const double cosine = m.dot / denominator;
  return std::clamp(cosine, -1.0, 1.0);
}

struct RowAgreement {
  bool top1 = true;
  bool top5 = true;
};

// Compares one sample's class scores. The reference's top-1 is found, then
// its rank in the actual scores (how many actual scores are strictly larger;
// a tie with the best counts as top-1). A disagreement only counts where the
// reference was clear about its top-1, i.e. its margin over the second best
// exceeds `margin_threshold`; the same rule is applied to top-5 so that
// top-5 agreement is never below top-1 agreement.
RowAgreement compare_row(const double* actual, const double* reference, int64_t classes,
                         double margin_threshold) {
  int64_t best = -1;
  for (int64_t c = 0; c < classes; ++c) {
    if (std::isnan(reference[c])) continue;
    if (best < 0 || reference[c] > reference[best]) best = c;
  }
  RowAgreement agreement;
  if (best < 0) return agreement;  // no usable reference scores: nothing to disagree with
  double second = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < classes; ++c) {
    if (c != best && !std::isnan(reference[c])) second = std::max(second, reference[c]);
  }
  const double margin = reference[best] - second;      // +inf with one class
  if (!(margin > margin_threshold)) return agreement;  // a near-tie: any answer agrees

  int64_t rank = classes;  // a NaN actual score for the reference's class ranks last
  if (!std::isnan(actual[best])) {
    rank = 0;
    for (int64_t c = 0; c < classes; ++c) {
      if (actual[c] > actual[best] || std::isnan(actual[c])) ++rank;
    }
  }
  agreement.top1 = rank == 0;
  agreement.top5 = rank < 5;
  return agreement;
}

void measure_class_scores(const Tensor& reference, const std::vector<double>& actual,
                          const std::vector<double>& expected, double max_ref,
                          const Tolerance& tolerance, OutputAccuracy& result) {
  if (reference.rank() < 1 || reference.dim(reference.rank() - 1) == 0 || result.samples == 0) {
    return;  // no classes or no samples: agreement is undefined, so left absent
  }
  const int64_t classes = reference.dim(reference.rank() - 1);
  // With no error bound (int8: cosine only) every clear ordering of the
  // reference counts, so only exact ties are forgiven.
  const double margin_threshold =
      std::isfinite(tolerance.max_error) ? tolerance.max_error * std::max(1.0, max_ref) : 0.0;
  int64_t top1 = 0, top5 = 0;
  for (int64_t row = 0; row < result.samples; ++row) {
    const size_t offset = static_cast<size_t>(row * classes);
    const RowAgreement agreement =
        compare_row(actual.data() + offset, expected.data() + offset, classes, margin_threshold);
    top1 += agreement.top1 ? 1 : 0;
    top5 += agreement.top5 ? 1 : 0;
  }
  result.top1_agreement = static_cast<double>(top1) / static_cast<double>(result.samples);
  result.top5_agreement = static_cast<double>(top5) / static_cast<double>(result.samples);
}

// Empty when the tensors can be compared element by element, else why not.
std::string incomparable_reason(const Tensor& actual, const Tensor& reference) {
  if (actual.dtype() != reference.dtype()) {
    return fmt::format("dtype {} vs {}", dtype_name(actual.dtype()), dtype_name(reference.dtype()));
  }
  if (!is_numeric(reference.dtype())) {
    return fmt::format("dtype {} is not numeric", dtype_name(reference.dtype()));
  }
  if (actual.shape() != reference.shape()) {
    return fmt::format("shape {} vs {}", shape_to_string(actual.shape()),
                       shape_to_string(reference.shape()));
  }
  return {};
}

std::string threshold_failure(const OutputAccuracy& result, const Tolerance& tolerance) {
  std::string failure;
  if (!(result.error <= tolerance.max_error)) {
    failure = fmt::format("error {:.3g} > {:.3g}", result.error, tolerance.max_error);
  }
  if (!(result.cosine >= tolerance.min_cosine)) {
    if (!failure.empty()) failure += "; ";
    failure += fmt::format("cosine {:.6g} < {:.6g}", result.cosine, tolerance.min_cosine);
  }
  return failure;
}

}  // namespace

Tolerance default_tolerance(const std::string& precision) {
  if (precision == "fp32") return Tolerance{1e-4, 0.0};
  if (precision == "fp16" || precision == "bf16") return Tolerance{1e-2, 0.0};
  if (precision == "int8") return Tolerance{std::numeric_limits<double>::infinity(), 0.99};
  fail(ErrorCode::kInvalidArgument,
       "unknown precision '{}' for accuracy tolerance (expected fp32, fp16, bf16 or int8)",
       precision);
}

OutputAccuracy compare_output(const std::string& name, const Tensor& actual,
                              const Tensor& reference, const Tolerance& tolerance,
                              bool class_scores) {
  OutputAccuracy result;
  result.name = name;
  result.samples = row_count(reference.shape());
  result.failure = incomparable_reason(actual, reference);
  if (!result.failure.empty()) return result;

  const std::vector<double> actual_values = values_as_double(actual);
  const std::vector<double> reference_values = values_as_double(reference);
  const ElementMetrics m = measure(actual_values, reference_values);
  result.cosine = cosine_of(m);
  result.max_abs = m.max_abs;
  result.mean_abs = m.compared > 0 ? m.sum_abs / static_cast<double>(m.compared) : 0.0;
  result.error = m.max_abs / std::max(1.0, m.max_ref);
  result.max_relative = m.max_relative;
  if (class_scores) {
    measure_class_scores(reference, actual_values, reference_values, m.max_ref, tolerance, result);
  }

  if (m.non_finite_mismatches > 0) {
    const size_t first = static_cast<size_t>(m.first_non_finite);
    result.failure = fmt::format(
        "{} non-finite value(s) differ from the reference (first at element {}: {} vs {})",
        m.non_finite_mismatches, m.first_non_finite, actual_values[first], reference_values[first]);
    return result;
  }
  result.failure = threshold_failure(result, tolerance);
  result.passed = result.failure.empty();
  return result;
}

nlohmann::json accuracy_json(const OutputAccuracy& accuracy) {
  nlohmann::json json = {
      {"name", accuracy.name},       {"cosine", accuracy.cosine},
      {"max_abs", accuracy.max_abs}, {"mean_abs", accuracy.mean_abs},
      {"error", accuracy.error},     {"max_relative", accuracy.max_relative},
      {"top1_agreement", nullptr},   {"top5_agreement", nullptr},
      {"samples", accuracy.samples}, {"passed", accuracy.passed},
      {"failure", accuracy.failure},
  };
  if (accuracy.top1_agreement) json["top1_agreement"] = *accuracy.top1_agreement;
  if (accuracy.top5_agreement) json["top5_agreement"] = *accuracy.top5_agreement;
  return json;
}

}  // namespace inferlab::bench
