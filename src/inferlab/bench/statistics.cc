// The statistics behind `inferlab bench` reports. Percentiles follow numpy's
// default (method='linear', including its two-sided lerp), so figures can be
// checked against a notebook. The bootstrap works in place on buffers reused
// across resamples and selects order statistics with nth_element: 10,000
// resamples of a few dozen rounds cost a few milliseconds.
#include "inferlab/bench/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>

#include "inferlab/core/error.h"

namespace inferlab::bench {
namespace {

// Throws unless `values` is a non-empty sample without NaN (NaN has no rank).
void require_rankable(const std::vector<double>& values, const char* what) {
  if (values.empty()) fail(ErrorCode::kInvalidArgument, "{}: the sample is empty", what);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      fail(ErrorCode::kInvalidArgument, "{}: value {} of the sample is NaN", what, i);
    }
  }
}

void require_quantile(double q, const char* what) {
  if (!(q >= 0.0 && q <= 1.0)) {
    fail(ErrorCode::kInvalidArgument, "{}: q = {} is outside [0, 1]", what, q);
  }
}

// numpy's _lerp: interpolates from the nearer end, so t = 1 gives b exactly
// and results stay monotonic in t.
double lerp_like_numpy(double a, double b, double t) {
  const double difference = b - a;
  return t >= 0.5 ? b - difference * (1.0 - t) : a + difference * t;
}

struct RankPosition {
  size_t lower = 0;     // index of the closest rank at or below q * (n - 1)
  double weight = 0.0;  // how far towards lower + 1; 0 when lower is the last
};

RankPosition rank_position(size_t count, double q) {
  const double position = q * static_cast<double>(count - 1);
  RankPosition rank;
  if (position >= static_cast<double>(count - 1)) {
    rank.lower = count - 1;
    return rank;
  }
  rank.lower = static_cast<size_t>(std::floor(position));
  rank.weight = position - static_cast<double>(rank.lower);
  return rank;
}

// Percentile of sorted values; count >= 1, q already checked.
double percentile_of_sorted(const double* sorted, size_t count, double q) {
  const RankPosition rank = rank_position(count, q);
  if (rank.weight == 0.0) return sorted[rank.lower];
  return lerp_like_numpy(sorted[rank.lower], sorted[rank.lower + 1], rank.weight);
}

// Percentile of values in any order, reordering them: nth_element puts the
// lower rank in place and everything above it after, whose minimum is the
// upper rank. Linear time, no allocation.
double select_percentile(double* values, size_t count, double q) {
  const RankPosition rank = rank_position(count, q);
  std::nth_element(values, values + rank.lower, values + count);
  const double lower = values[rank.lower];
  if (rank.weight == 0.0) return lower;
  const double upper = *std::min_element(values + rank.lower + 1, values + count);
  return lerp_like_numpy(lower, upper, rank.weight);
}

double mean_of(const double* values, size_t count) {
  double sum = 0.0;
  for (size_t i = 0; i < count; ++i) sum += values[i];
  return sum / static_cast<double>(count);
}

void require_bootstrap_options(const BootstrapOptions& options, const char* what) {
  if (options.resamples < 1) {
    fail(ErrorCode::kInvalidArgument, "{}: resamples = {} must be at least 1", what,
         options.resamples);
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    fail(ErrorCode::kInvalidArgument, "{}: confidence = {} must be inside (0, 1)", what,
         options.confidence);
  }
}

// The percentile-bootstrap interval from the resampled statistics (reordered).
Interval percentile_interval(std::vector<double>& statistics, double confidence) {
  const double tail = (1.0 - confidence) / 2.0;
  Interval interval;
  interval.low = select_percentile(statistics.data(), statistics.size(), tail);
  interval.high = select_percentile(statistics.data(), statistics.size(), 1.0 - tail);
  return interval;
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  require_rankable(values, "percentile");
  require_quantile(q, "percentile");
  return select_percentile(values.data(), values.size(), q);
}

double median(std::vector<double> values) {
  require_rankable(values, "median");
  return select_percentile(values.data(), values.size(), 0.5);
}

double mean(const std::vector<double>& values) {
  if (values.empty()) fail(ErrorCode::kInvalidArgument, "mean: the sample is empty");
  return mean_of(values.data(), values.size());
}

double standard_deviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  const double center = mean_of(values.data(), values.size());
  double squares = 0.0;
  for (double value : values) squares += (value - center) * (value - center);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

double trimmed_mean(std::vector<double> values, double fraction) {
  require_rankable(values, "trimmed_mean");
  if (!(fraction >= 0.0 && fraction < 0.5)) {
    fail(ErrorCode::kInvalidArgument, "trimmed_mean: fraction = {} is outside [0, 0.5)", fraction);
  }
  // fraction < 0.5 keeps 2 * dropped < n, so at least one value remains.
  const auto dropped =
      static_cast<size_t>(std::floor(fraction * static_cast<double>(values.size())));
  std::sort(values.begin(), values.end());
  return mean_of(values.data() + dropped, values.size() - 2 * dropped);
}

double coefficient_of_variation(const std::vector<double>& values) {
  const double center = mean(values);
  if (center == 0.0) return 0.0;
  return standard_deviation(values) / center;
}

Summary summarize(const std::vector<double>& samples) {
  require_rankable(samples, "summarize");
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t count = sorted.size();
  Summary summary;
  summary.count = static_cast<int64_t>(count);
  summary.min = sorted.front();
  summary.max = sorted.back();
  summary.mean = mean_of(samples.data(), count);
  summary.stddev = standard_deviation(samples);
  summary.p50 = percentile_of_sorted(sorted.data(), count, 0.50);
  summary.p90 = percentile_of_sorted(sorted.data(), count, 0.90);
  summary.p95 = percentile_of_sorted(sorted.data(), count, 0.95);
  summary.p99 = percentile_of_sorted(sorted.data(), count, 0.99);
  if (count >= 1000) {
    summary.p999 = percentile_of_sorted(sorted.data(), count, 0.999);
    summary.has_p999 = true;
  }
  return summary;
}

Interval bootstrap_median_interval(const std::vector<double>& round_medians,
                                   const BootstrapOptions& options) {
  require_rankable(round_medians, "bootstrap_median_interval");
  require_bootstrap_options(options, "bootstrap_median_interval");
  const size_t count = round_medians.size();
  std::mt19937_64 generator(options.seed);
  std::uniform_int_distribution<size_t> pick_round(0, count - 1);
  std::vector<double> resample(count);
  std::vector<double> statistics(static_cast<size_t>(options.resamples));
  for (double& statistic : statistics) {
    for (double& value : resample) value = round_medians[pick_round(generator)];
    statistic = select_percentile(resample.data(), count, 0.5);
  }
  return percentile_interval(statistics, options.confidence);
}

Interval bootstrap_ratio_interval(const std::vector<double>& numerator_rounds,
                                  const std::vector<double>& denominator_rounds,
                                  const BootstrapOptions& options) {
  const char* what = "bootstrap_ratio_interval";
  if (numerator_rounds.size() != denominator_rounds.size()) {
    fail(ErrorCode::kInvalidArgument,
         "{}: {} numerator rounds but {} denominator rounds; rounds must pair up", what,
         numerator_rounds.size(), denominator_rounds.size());
  }
  require_rankable(numerator_rounds, what);
  require_rankable(denominator_rounds, what);
  require_bootstrap_options(options, what);
  if (!(median(denominator_rounds) > 0.0)) {
    fail(ErrorCode::kInvalidArgument, "{}: the median of the denominator rounds must be > 0", what);
  }
  const size_t count = numerator_rounds.size();
  std::mt19937_64 generator(options.seed);
  std::uniform_int_distribution<size_t> pick_round(0, count - 1);
  std::vector<double> numerators(count);
  std::vector<double> denominators(count);
  std::vector<double> statistics(static_cast<size_t>(options.resamples));
  for (double& statistic : statistics) {
    for (size_t i = 0; i < count; ++i) {
      const size_t round = pick_round(generator);  // both sides of the same round
      numerators[i] = numerator_rounds[round];
      denominators[i] = denominator_rounds[round];
    }
    const double numerator = select_percentile(numerators.data(), count, 0.5);
    const double denominator = select_percentile(denominators.data(), count, 0.5);
    // A resample may still draw a non-positive median when some rounds are;
    // its ratio is unbounded, and +inf keeps the statistics orderable.
    statistic =
        denominator > 0.0 ? numerator / denominator : std::numeric_limits<double>::infinity();
  }
  return percentile_interval(statistics, options.confidence);
}

}  // namespace inferlab::bench
