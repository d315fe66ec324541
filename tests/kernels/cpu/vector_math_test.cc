// Accuracy of the vector exp, tanh, erf and sigmoid of every ISA against the
// double-precision C library on a dense grid of [-10, 10], and their
// results on special values (signed zeros, infinities, NaN, huge inputs).
// Tolerances: exp relative 2e-6; tanh, erf absolute 1e-6; sigmoid relative 2e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "inferlab/kernels/cpu/kernel_table.h"
#include "kernels/cpu/cpu_test_util.h"

namespace inferlab::kernels::cpu {
namespace {

struct Case {
  UnaryKind kind;
  double (*exact)(double);
  bool relative;
  double tolerance;
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void expect_accurate(Isa isa, const Case& c) {
  const int n = 200001;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = -10.0f + 20.0f * static_cast<float>(i) / (n - 1);
  kernel_table(isa).unary_f32(c.kind, {}, x.data(), y.data(), n);
  double worst = 0;
  float where = 0;
  for (int i = 0; i < n; ++i) {
    const double exact = c.exact(x[i]);
    double err = std::fabs(y[i] - exact);
    if (c.relative) err /= std::fabs(exact);
    if (err > worst) {
      worst = err;
      where = x[i];
    }
  }
  EXPECT_LE(worst, c.tolerance) << isa_name(isa) << " kind " << static_cast<int>(c.kind)
                                << " at x = " << where;
}

TEST(VectorMath, ExpTanhErfSigmoidWithinFp32ToleranceOnEveryIsa) {
  const Case cases[] = {{UnaryKind::kExp, [](double v) { return std::exp(v); }, true, 2e-6},
                        {UnaryKind::kTanh, [](double v) { return std::tanh(v); }, false, 1e-6},
                        {UnaryKind::kErf, [](double v) { return std::erf(v); }, false, 1e-6},
                        {UnaryKind::kSigmoid, sigmoid, true, 2e-6}};
  for (Isa isa : supported_isas()) {
    for (const Case& c : cases) expect_accurate(isa, c);
  }
}

TEST(VectorMath, SpecialValuesFollowTheCLibrary) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0.0f, -0.0f, inf, -inf, nan, 1e30f, -1e30f, 100.0f, -100.0f};
  for (Isa isa : supported_isas()) {
    for (UnaryKind kind : {UnaryKind::kExp, UnaryKind::kTanh, UnaryKind::kErf}) {
      std::vector<float> y(x.size());
      kernel_table(isa).unary_f32(kind, {}, x.data(), y.data(), static_cast<int64_t>(x.size()));
      for (size_t i = 0; i < x.size(); ++i) {
        const float exact = kind == UnaryKind::kExp    ? std::exp(x[i])
                            : kind == UnaryKind::kTanh ? std::tanh(x[i])
                                                       : std::erf(x[i]);
        if (std::isnan(exact)) {
          EXPECT_TRUE(std::isnan(y[i])) << isa_name(isa) << " x = " << x[i];
        } else if (y[i] != exact) {  // infinities compare equal
          // exp(-100) is denormal in the C library and flushed to 0 here.
          EXPECT_NEAR(y[i], exact, 1e-37) << isa_name(isa) << " x = " << x[i];
          if (exact == 0) {
            EXPECT_EQ(std::signbit(y[i]), std::signbit(exact)) << x[i];
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace inferlab::kernels::cpu
