// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/run/choices.h"
#include "dpadmm/solver/loss.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

Loss Logistic() { return Loss{LossKind::kLogistic, 0.5}; }
Loss SmoothHinge(double h) { return Loss{LossKind::kSmoothHinge, h}; }

// Margins from the saturated tails through 0 and the hinge region.
std::vector<double> Grid() {
  return {-800.0, -100.0, -40.0, -20.0, -5.0, -2.0, -1.0, -0.5, -1e-3, 0.0,   1e-3, 0.3,
          0.55,   0.8,    1.0,   1.2,   1.45, 2.0,  5.0,  20.0, 40.0,  100.0, 800.0};
}

// Central difference of fn at z. The step scales with |z| so that the rounding error
// eps |fn| / step stays small for large margins; the truncation error is O(step^2 |fn'''|).
template <class Fn>
double CentralDifference(Fn fn, double z) {
  const double step = 1e-5 * std::max(1.0, std::abs(z));
  return (fn(z + step) - fn(z - step)) / (2.0 * step);
}

// Tolerance for the comparisons with central differences: truncation ~ step^2 * sup|L'''|
// (sup |L'''| <= 0.1 for the logistic loss) plus rounding ~ eps |L| / step, both far below this.
constexpr double kFiniteDifferenceTolerance = 1e-7;

bool NearKink(const Loss& loss, double z) {
  if (loss.kind != LossKind::kSmoothHinge) return false;
  const double margin = 1e-3;
  return std::abs(z - (1.0 - loss.huber_h)) < margin || std::abs(z - (1.0 + loss.huber_h)) < margin;
}

class LossDerivativeTest : public ::testing::TestWithParam<Loss> {};

TEST_P(LossDerivativeTest, FirstDerivativeMatchesCentralDifferences) {
  const Loss loss = GetParam();
  for (double z : Grid()) {
    if (NearKink(loss, z)) continue;
    const double fd = CentralDifference([&](double u) { return loss.Value(u); }, z);
    EXPECT_NEAR(loss.D1(z), fd, kFiniteDifferenceTolerance * std::max(1.0, std::abs(fd)))
        << loss.Name() << " z=" << z;
  }
}

TEST_P(LossDerivativeTest, SecondDerivativeMatchesCentralDifferences) {
  const Loss loss = GetParam();
  for (double z : Grid()) {
    if (NearKink(loss, z)) continue;
    const double fd = CentralDifference([&](double u) { return loss.D1(u); }, z);
    EXPECT_NEAR(loss.D2(z), fd, kFiniteDifferenceTolerance) << loss.Name() << " z=" << z;
  }
}

TEST_P(LossDerivativeTest, DerivativesRespectThePapersBounds) {
  // Assumption 1 of 004 / Assumption 4 of 003: |L'| <= 1 and 0 <= L'' <= c1.
  const Loss loss = GetParam();
  for (double z = -50.0; z <= 50.0; z += 0.01) {
    EXPECT_LE(std::abs(loss.D1(z)), 1.0) << z;
    EXPECT_GE(loss.D2(z), 0.0) << z;
    EXPECT_LE(loss.D2(z), loss.CurvatureBound()) << z;
    EXPECT_GE(loss.Value(z), 0.0) << z;
  }
}

TEST_P(LossDerivativeTest, ConvexAndDecreasing) {
  const Loss loss = GetParam();
  double previous_value = loss.Value(-60.0);
  double previous_d1 = loss.D1(-60.0);
  for (double z = -59.9; z <= 60.0; z += 0.1) {
    EXPECT_LE(loss.Value(z), previous_value) << z;
    EXPECT_GE(loss.D1(z), previous_d1) << z;
    previous_value = loss.Value(z);
    previous_d1 = loss.D1(z);
  }
}

TEST_P(LossDerivativeTest, FiniteAndAccurateForLargeMargins) {
  const Loss loss = GetParam();
  for (double z : {-1e300, -1e10, -800.0, 800.0, 1e10, 1e300}) {
    EXPECT_TRUE(std::isfinite(loss.Value(z))) << z;
    EXPECT_TRUE(std::isfinite(loss.D1(z))) << z;
    EXPECT_TRUE(std::isfinite(loss.D2(z))) << z;
  }
  // Far on the wrong side both losses are linear with slope -1, far on the right side flat.
  EXPECT_NEAR(loss.D1(-800.0), -1.0, 0.0);
  EXPECT_EQ(loss.D1(800.0), 0.0);
  EXPECT_EQ(loss.D2(800.0), 0.0);
  EXPECT_EQ(loss.D2(-800.0), 0.0);
  EXPECT_EQ(loss.Value(800.0), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Losses, LossDerivativeTest,
                         ::testing::Values(Logistic(), SmoothHinge(0.5), SmoothHinge(0.1),
                                           SmoothHinge(2.0)),
                         [](const auto& param_info) {
                           return param_info.param.kind == LossKind::kLogistic
                                      ? std::string("logistic")
                                      : "smooth_hinge_h" + std::to_string(static_cast<int>(
                                                               param_info.param.huber_h * 10.0));
                         });

TEST(LossTest, LogisticMatchesItsDefinition) {
  const Loss loss = Logistic();
  EXPECT_DOUBLE_EQ(loss.Value(0.0), std::log(2.0));
  EXPECT_DOUBLE_EQ(loss.D1(0.0), -0.5);
  EXPECT_DOUBLE_EQ(loss.D2(0.0), 0.25);
  for (double z : {-30.0, -3.0, -0.7, 0.2, 4.0, 30.0}) {
    const double sigma = 1.0 / (1.0 + std::exp(-z));  // sigma(z)
    EXPECT_NEAR(loss.Value(z), std::log(1.0 + std::exp(-z)), 1e-15 * std::max(1.0, -z)) << z;
    EXPECT_NEAR(loss.D1(z), sigma - 1.0, 4e-16) << z;
    EXPECT_NEAR(loss.D2(z), sigma * (1.0 - sigma), 4e-16) << z;
  }
  // Large margins: no overflow, and the tiny values keep their relative accuracy.
  EXPECT_DOUBLE_EQ(loss.Value(-800.0), 800.0);
  EXPECT_DOUBLE_EQ(loss.Value(40.0), std::exp(-40.0));
  EXPECT_DOUBLE_EQ(loss.D1(40.0), -std::exp(-40.0));
  EXPECT_DOUBLE_EQ(loss.D2(40.0), std::exp(-40.0));
  EXPECT_DOUBLE_EQ(loss.D2(-40.0), std::exp(-40.0));
  EXPECT_DOUBLE_EQ(loss.CurvatureBound(), 0.25);
  EXPECT_EQ(loss.Name(), "logistic");
}

TEST(LossTest, SmoothHingeMatchesItsDefinition) {
  const double h = 0.5;
  const Loss loss = SmoothHinge(h);
  EXPECT_DOUBLE_EQ(loss.Value(0.0), 1.0);      // linear part: 1 - z
  EXPECT_DOUBLE_EQ(loss.Value(1.0), h / 4.0);  // (1 + h - z)^2 / (4h) at z = 1
  EXPECT_DOUBLE_EQ(loss.Value(2.0), 0.0);
  EXPECT_DOUBLE_EQ(loss.D1(1.0), -0.5);
  EXPECT_DOUBLE_EQ(loss.D2(1.0), 1.0 / (2.0 * h));
  EXPECT_DOUBLE_EQ(loss.CurvatureBound(), 1.0 / (2.0 * h));
  EXPECT_EQ(loss.Name(), "smooth_hinge");
}

TEST(LossTest, SmoothHingeValueAndSlopeAreContinuousAtTheKinks) {
  for (double h : {0.1, 0.5, 2.0}) {
    const Loss loss = SmoothHinge(h);
    for (double kink : {1.0 - h, 1.0 + h}) {
      const double delta = 1e-9;
      EXPECT_NEAR(loss.Value(kink - delta), loss.Value(kink + delta), 4.0 * delta) << h;
      EXPECT_NEAR(loss.D1(kink - delta), loss.D1(kink + delta), 4.0 * delta / h) << h;
    }
  }
}

TEST(LossTest, NaNPropagatesThroughValueAndSlope) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const Loss& loss : {Logistic(), SmoothHinge(0.5)}) {
    EXPECT_TRUE(std::isnan(loss.Value(nan))) << loss.Name();
    EXPECT_TRUE(std::isnan(loss.D1(nan))) << loss.Name();
  }
}

// Loss names come from the one choice table (dpadmm/run/choices.h).
TEST(LossTest, LossNamesParseThroughTheChoiceTable) {
  EXPECT_EQ(ParseChoice<LossKind>("logistic", "loss"), LossKind::kLogistic);
  EXPECT_EQ(ParseChoice<LossKind>("smooth_hinge", "loss"), LossKind::kSmoothHinge);
  EXPECT_TRUE(ThrowsInputError([] { (void)ParseChoice<LossKind>("hinge", "run.loss"); },
                               {"run.loss", "'hinge'", "logistic", "smooth_hinge"}));
  EXPECT_TRUE(ThrowsInputError([] { (void)ParseChoice<LossKind>("", "loss"); }, {"loss", "''"}));
  EXPECT_TRUE(
      ThrowsInputError([] { (void)ParseChoice<LossKind>("Logistic", "loss"); }, {"'Logistic'"}));
}

}  // namespace
}  // namespace dpadmm
