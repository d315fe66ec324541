// The statistics InferLab reports (../shared/methodology.md, docs/bench.md):
// percentiles with linear interpolation between closest ranks (numpy's
// default), trimmed means, and percentile-bootstrap intervals over rounds —
// paired by round for ratios, so machine drift that hits both sides of a
// round cancels out. Every random choice comes from a caller-given seed.
#pragma once

#include <cstdint>
#include <vector>

namespace inferlab::bench {

// q in [0, 1]; throws Error(kInvalidArgument) for an empty sample or q outside.
double percentile(std::vector<double> values, double q);
double median(std::vector<double> values);
double mean(const std::vector<double>& values);
// Sample standard deviation (n - 1); 0 for fewer than two values.
double standard_deviation(const std::vector<double>& values);
// Mean after dropping floor(fraction * n) values from each end.
double trimmed_mean(std::vector<double> values, double fraction = 0.10);
// standard_deviation / mean; 0 when the mean is 0.
double coefficient_of_variation(const std::vector<double>& values);

struct Summary {
  int64_t count = 0;
  double min = 0, max = 0, mean = 0, stddev = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0;
  double p999 = 0;  // only meaningful when count >= 1000 (has_p999)
  bool has_p999 = false;
};
Summary summarize(const std::vector<double>& samples);

struct Interval {
  double low = 0;
  double high = 0;
  bool contains(double value) const { return low <= value && value <= high; }
};

struct BootstrapOptions {
  int resamples = 10000;
  double confidence = 0.95;
  uint64_t seed = 0;
};

// Interval of the median of `round_medians`, resampling rounds with replacement.
Interval bootstrap_median_interval(const std::vector<double>& round_medians,
                                   const BootstrapOptions& options);

// Interval of median(numerator) / median(denominator) where element i of both
// comes from round i: each resample draws round indices and takes both sides
// of the drawn rounds together. Sizes must match.
Interval bootstrap_ratio_interval(const std::vector<double>& numerator_rounds,
                                  const std::vector<double>& denominator_rounds,
                                  const BootstrapOptions& options);

}  // namespace inferlab::bench
