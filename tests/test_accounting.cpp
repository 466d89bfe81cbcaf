// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/accounting.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

// The expected values below were worked out by hand, step by step as shown, and cross-checked
// at 25 significant digits with mpmath. The implementation uses log1p / expm1, so agreement to
// a few ulps is expected; kRel allows 1e-13 relative.
constexpr double kRel = 1e-13;

// --- 004 Algorithm 2 (DVP) --------------------------------------------------------------------

TEST(AccountingDvp, PositiveAlphaHatNeedsNoExtraPenalty) {
  // DvpNoise(alpha = 1, C = 1750, B = 6000, c1 = 0.25, rho = 0.01, eta = 0.5, V = 2):
  //   rho + 2 eta V        = 0.01 + 2 * 0.5 * 2        = 2.01
  //   c1 C / (B (2.01))    = 437.5 / 12060             = 0.0362769485903814262...
  //   ln(1 + 0.03627...)                                = 0.0356344330065489892...
  //   alpha_hat = 1 - 2 * 0.0356344330065489892...     = 0.928731133986902021... > 0
  //   => Phi = 0, zeta = alpha_hat / 2                  = 0.464365566993451010...
  const DvpParameters p = DvpNoise(1.0, 1750.0, 6000.0, 0.25, 0.01, 0.5, 2);
  EXPECT_FALSE(p.extra_penalty);
  EXPECT_EQ(p.phi, 0.0);
  EXPECT_NEAR(p.zeta, 0.464365566993451010, kRel * 0.46);
}

TEST(AccountingDvp, NonPositiveAlphaHatUsesPhiBranch) {
  // DvpNoise(alpha = 0.1, C = 1750, B = 100, c1 = 0.25, rho = 0.01, eta = 0.5, V = 2):
  //   c1 C / (B (2.01))    = 437.5 / 201               = 2.17661691542288557...
  //   alpha_hat = 0.1 - 2 ln(3.17661691542288557...)
  //             = 0.1 - 2 * 1.15581676741351823...     = -2.21163353482703646... <= 0
  //   => e^{alpha/4} - 1 = e^{0.025} - 1               = 0.0253151205244288407...
  //      Phi = 437.5 / (100 * 0.0253151205244288407...) - 2.01
  //          = 172.821614488391170... - 2.01           = 170.811614488391170...
  //      zeta = (alpha / 2) / 2                         = 0.025
  const DvpParameters p = DvpNoise(0.1, 1750.0, 100.0, 0.25, 0.01, 0.5, 2);
  EXPECT_TRUE(p.extra_penalty);
  EXPECT_NEAR(p.phi, 170.811614488391170, kRel * 171.0);
  EXPECT_DOUBLE_EQ(p.zeta, 0.025);
}

TEST(AccountingDvp, PhiMakesTheJacobianTermExactlyHalfOfAlpha) {
  // 004 eq. (21): alpha_bar = 2 ln(1 + c1 C / (B (rho + Phi + 2 eta V))); the Phi branch is
  // chosen so that alpha_bar = alpha / 2 (then alpha - alpha_bar = alpha_hat = alpha / 2).
  const double alpha = 0.3, C = 1750.0, B = 250.0, c1 = 0.25, rho = 0.003, eta = 0.2;
  const int V = 3;
  const DvpParameters p = DvpNoise(alpha, C, B, c1, rho, eta, V);
  ASSERT_TRUE(p.extra_penalty);
  EXPECT_GT(p.phi, 0.0);
  const double alpha_bar = 2.0 * std::log1p(c1 * C / (B * (rho + p.phi + 2.0 * eta * V)));
  EXPECT_NEAR(alpha_bar, alpha / 2.0, 1e-14);
  EXPECT_DOUBLE_EQ(p.zeta, alpha / 4.0);
}

TEST(AccountingDvp, ZeroCurvatureBoundKeepsAllOfAlpha) {
  // c1 = 0: ln(1 + 0) = 0, alpha_hat = alpha = 2, zeta = 1.
  const DvpParameters p = DvpNoise(2.0, 1750.0, 100.0, 0.0, 0.01, 0.5, 2);
  EXPECT_FALSE(p.extra_penalty);
  EXPECT_EQ(p.zeta, 1.0);
}

// --- Primal variable perturbation ------------------------------------------------------------

TEST(AccountingPvp, SensitivityAndNoiseParameter) {
  // PvpSensitivity(C = 1750, B = 6000, rho = 0.01, eta = 0.5, V = 2):
  //   2 C / (B (rho + 2 eta V)) = 3500 / (6000 * 2.01) = 3500 / 12060 = 0.290215588723051409...
  // PvpNoiseParameter(alpha = 1, ...) = 1 / 0.29021... = 12060 / 3500 = 3.44571428571428571...
  EXPECT_NEAR(PvpSensitivity(1750.0, 6000.0, 0.01, 0.5, 2), 0.290215588723051409, kRel);
  EXPECT_NEAR(PvpNoiseParameter(1.0, 1750.0, 6000.0, 0.01, 0.5, 2), 3.44571428571428571,
              kRel * 3.5);
  // Exactly representable: C = 1, B = 4, rho = 0.5, eta = 0.25, V = 1:
  //   2 / (4 (0.5 + 0.5)) = 0.5; alpha = 2 -> zeta = 2 / 0.5 = 4.
  EXPECT_EQ(PvpSensitivity(1.0, 4.0, 0.5, 0.25, 1), 0.5);
  EXPECT_EQ(PvpNoiseParameter(2.0, 1.0, 4.0, 0.5, 0.25, 1), 4.0);
  // An isolated node (V = 0) is fine as long as rho > 0: 2 * 1 / (4 * 0.5) = 1.
  EXPECT_EQ(PvpSensitivity(1.0, 4.0, 0.5, 0.25, 0), 1.0);
}

// --- 002: M-ADMM -----------------------------------------------------------------------------

TEST(AccountingMadmm, GeometricScheduleStartsAtFirst) {
  // 002: eta_i(t+1) = theta q1^t, so value(t) = first * ratio^(t-1).
  EXPECT_EQ(GeometricSchedule(0.5, 1.04, 1), 0.5);            // 0.5 * 1.04^0
  EXPECT_DOUBLE_EQ(GeometricSchedule(0.5, 1.04, 3), 0.5408);  // 0.5 * 1.0816
  EXPECT_EQ(GeometricSchedule(3.0, 2.0, 5), 48.0);            // 3 * 2^4
  EXPECT_EQ(GeometricSchedule(3.0, 0.5, 3), 0.75);            // 3 * 0.25 (a decaying alpha)
  EXPECT_EQ(GeometricSchedule(0.7, 1.0, 1000000), 0.7);       // q = 1: DVP's constant eta
}

TEST(AccountingMadmm, IterationLoss) {
  // MadmmIterationLoss(C = 1750, c1 = 0.25, alpha = 1, eta = 0.5, V = 2, B = 6000):
  //   C (1.4 c1 + alpha) / (eta V B) = 1750 * (0.35 + 1) / (0.5 * 2 * 6000)
  //                                  = 2362.5 / 6000 = 0.39375
  EXPECT_NEAR(MadmmIterationLoss(1750.0, 0.25, 1.0, 0.5, 2, 6000.0), 0.39375, kRel);
}

TEST(AccountingMadmm, TotalIsMaxOverNodesOfSumsNotSumOfMaxes) {
  // Node sums: 1 + 2 + 3 = 6, 2 + 2 + 2.5 = 6.5, 0.5 * 3 = 1.5 -> P = 6.5.
  // (The sum over t of the per-iteration maxima would be 2 + 2 + 3 = 7.)
  EXPECT_EQ(MaxOverNodesOfSums({{1.0, 2.0, 3.0}, {2.0, 2.0, 2.5}, {0.5, 0.5, 0.5}}), 6.5);
  EXPECT_EQ(MaxOverNodesOfSums({{0.25}}), 0.25);
  EXPECT_EQ(MaxOverNodesOfSums({{}, {}}), 0.0);  // T = 0: nothing released yet
}

TEST(AccountingMadmm, PrivacyOfTwoNodesOverTwoIterations) {
  // 002's P(T) for T = 2, C = 1750, c1 = 0.25, theta = 0.5, q1 = 1.5, alpha = 1, q2 = 1:
  //   eta(1) = 0.5, eta(2) = 0.75; every numerator is C (1.4 c1 + 1) = 1750 * 1.35 = 2362.5.
  //   node 0 (V = 2, B = 6000): 2362.5 / 6000 + 2362.5 / 9000 = 0.39375 + 0.2625 = 0.65625
  //   node 1 (V = 1, B = 4000): 2362.5 / 2000 + 2362.5 / 3000 = 1.18125 + 0.7875 = 1.96875
  //   P(2) = max(0.65625, 1.96875) = 1.96875
  const int degree[2] = {2, 1};
  const double rows[2] = {6000.0, 4000.0};
  std::vector<std::vector<double>> terms(2);
  for (int i = 0; i < 2; ++i) {
    for (std::int64_t t = 1; t <= 2; ++t) {
      terms[i].push_back(MadmmIterationLoss(1750.0, 0.25, GeometricSchedule(1.0, 1.0, t),
                                            GeometricSchedule(0.5, 1.5, t), degree[i], rows[i]));
    }
  }
  EXPECT_NEAR(terms[0][0] + terms[0][1], 0.65625, kRel);
  EXPECT_NEAR(MaxOverNodesOfSums(terms), 1.96875, kRel * 2.0);
}

// --- 003: private MR-ADMM --------------------------------------------------------------------

TEST(AccountingMrAdmm, IterationLossIsEquation32Term) {
  // MrAdmmIterationLoss(C = 1750, B = 8000, c1 = 0.25, rho = 0.22, N = 5, eta = 1.04, V = 2,
  //                     alpha = 0.5):
  //   rho/N + 2 eta V  = 0.044 + 4.16                   = 4.204
  //   1.4 c1 / 4.204   = 0.35 / 4.204                   = 0.0832540437678401522...
  //   2 C / B          = 3500 / 8000                    = 0.4375
  //   term = 0.4375 * (0.0832540437678401522... + 0.5) = 0.255173644148430067...
  EXPECT_NEAR(MrAdmmIterationLoss(1750.0, 8000.0, 0.25, 0.22, 5, 1.04, 2, 0.5),
              0.255173644148430067, kRel);
}

TEST(AccountingMrAdmm, BetaIsMaxOverNodesOfSummedTerms) {
  // Two odd iterations (k = 1, 2) with eta_i(2k-1) = q1^k, q1 = 2, alpha_i(k) = 1, C = 1,
  // c1 = 0.25, rho = 0, N = 2 (values picked to be exact in binary):
  //   node 0 (B = 1, V = 1): k = 1: 2 (0.35 / (2 * 2 * 1) + 1) = 2 * 1.0875  = 2.175
  //                          k = 2: 2 (0.35 / (2 * 4 * 1) + 1) = 2 * 1.04375 = 2.0875
  //                          sum = 4.2625
  //   node 1 (B = 2, V = 2): k = 1: 1 (0.35 / 8 + 1) = 1.04375
  //                          k = 2: 1 (0.35 / 16 + 1) = 1.021875
  //                          sum = 2.065625
  //   beta = 4.2625
  std::vector<std::vector<double>> terms(2);
  const double rows[2] = {1.0, 2.0};
  const int degree[2] = {1, 2};
  for (int i = 0; i < 2; ++i) {
    for (std::int64_t k = 1; k <= 2; ++k) {
      terms[i].push_back(MrAdmmIterationLoss(1.0, rows[i], 0.25, 0.0, 2,
                                             GeometricSchedule(2.0, 2.0, k), degree[i], 1.0));
    }
  }
  EXPECT_NEAR(terms[1][0] + terms[1][1], 2.065625, kRel * 2.0);
  EXPECT_NEAR(MaxOverNodesOfSums(terms), 4.2625, kRel * 4.0);
}

TEST(AccountingMrAdmm, FirstPenaltyCondition) {
  // 003 Algorithm 3: 2 c1 < (B / C)(rho/N + 2 eta(1) V), here 2 c1 = 0.5.
  // Holds: (8000 / 1750)(0.22/5 + 2 * 1.04 * 2) = 4.5714... * 4.204 = 19.218... > 0.5.
  EXPECT_TRUE(MrAdmmFirstPenaltyOk(1750.0, 8000.0, 0.25, 0.22, 5, 1.04, 2));
  // Fails: (100 / 1750)(0.044 + 2 * 0.01 * 1) = 0.05714... * 0.064 = 0.003657... < 0.5.
  EXPECT_FALSE(MrAdmmFirstPenaltyOk(1750.0, 100.0, 0.25, 0.22, 5, 0.01, 1));
  // The inequality is strict: (1 / 1)(0 / 1 + 2 * 0.25 * 1) = 0.5, not > 0.5.
  EXPECT_FALSE(MrAdmmFirstPenaltyOk(1.0, 1.0, 0.25, 0.0, 1, 0.25, 1));
  // ... and just above the boundary it holds: 2 * 0.2500001 = 0.5000002 > 0.5.
  EXPECT_TRUE(MrAdmmFirstPenaltyOk(1.0, 1.0, 0.25, 0.0, 1, 0.2500001, 1));
}

// --- Composition -----------------------------------------------------------------------------

TEST(AccountingCompose, BasicCompositionSums) {
  EXPECT_EQ(ComposeBasic({}), 0.0);
  EXPECT_EQ(ComposeBasic({0.5, 0.25, 1.0}), 1.75);
  EXPECT_DOUBLE_EQ(ComposeBasic({0.1, 0.2, 0.3}), 0.6);
  // DVP gives alpha_p(t)-DP per iteration (004 Theorem 1): 10 iterations of alpha = 0.5 -> 5.
  EXPECT_EQ(ComposeBasic(std::vector<double>(10, 0.5)), 5.0);
}

// --- Invalid arguments -----------------------------------------------------------------------

TEST(AccountingErrors, DvpNamesTheArgument) {
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(-1.0, 1750, 6000, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: alpha must be > 0, got -1"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(0.0, 1750, 6000, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: alpha must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 0, 6000, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: C must be > 0"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, -5, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: B must be > 0, got -5"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, 6000, -0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: c1 must be >= 0, got -0.25"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, 6000, 0.25, -0.01, 0.5, 2); },
                               {"DvpNoise: rho must be >= 0, got -0.01"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, 6000, 0.25, 0.01, 0, 2); },
                               {"DvpNoise: eta must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, 6000, 0.25, 0.01, 0.5, -1); },
                               {"DvpNoise: V must be >= 0, got -1"}));
  EXPECT_TRUE(ThrowsInputError([] { DvpNoise(1, 1750, 6000, 0.25, 0.0, 0.5, 0); },
                               {"DvpNoise: rho + 2 eta V must be > 0"}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(ThrowsInputError([&] { DvpNoise(nan, 1750, 6000, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: alpha must be finite"}));
  EXPECT_TRUE(ThrowsInputError([&] { DvpNoise(1, inf, 6000, 0.25, 0.01, 0.5, 2); },
                               {"DvpNoise: C must be finite, got inf"}));
}

TEST(AccountingErrors, PvpNamesTheArgument) {
  EXPECT_TRUE(ThrowsInputError([] { PvpSensitivity(1750, 0, 0.01, 0.5, 2); },
                               {"PvpSensitivity: B must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { PvpSensitivity(1750, 6000, 0, 0.5, 0); },
                               {"PvpSensitivity: rho + 2 eta V must be > 0"}));
  EXPECT_TRUE(ThrowsInputError([] { PvpNoiseParameter(-2, 1750, 6000, 0.01, 0.5, 2); },
                               {"PvpNoiseParameter: alpha must be > 0, got -2"}));
  EXPECT_TRUE(ThrowsInputError([] { PvpNoiseParameter(1, 1750, 6000, 0.01, -0.5, 2); },
                               {"PvpNoiseParameter: eta must be > 0, got -0.5"}));
}

TEST(AccountingErrors, ScheduleAndMadmmNameTheArgument) {
  EXPECT_TRUE(ThrowsInputError([] { GeometricSchedule(0.5, 1.04, 0); },
                               {"GeometricSchedule: t must be >= 1, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { GeometricSchedule(0.0, 1.04, 1); },
                               {"GeometricSchedule: first must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { GeometricSchedule(0.5, -1.0, 1); },
                               {"GeometricSchedule: ratio must be > 0, got -1"}));
  EXPECT_TRUE(ThrowsInputError([] { MadmmIterationLoss(1750, 0.25, 1, 0.5, 0, 6000); },
                               {"MadmmIterationLoss: V must be >= 1, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { MadmmIterationLoss(1750, 0.25, 0, 0.5, 2, 6000); },
                               {"MadmmIterationLoss: alpha must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { MaxOverNodesOfSums({}); },
                               {"MaxOverNodesOfSums: terms must hold at least one node"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        MaxOverNodesOfSums({{1.0, 2.0}, {1.0}});
      },
      {"MaxOverNodesOfSums: node 1 has 1 terms, node 0 has 2"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        MaxOverNodesOfSums({{1.0, 2.0}, {1.0, -3.0}});
      },
      {"MaxOverNodesOfSums: terms[1][1] must be >= 0, got -3"}));
}

TEST(AccountingErrors, MrAdmmAndCompositionNameTheArgument) {
  EXPECT_TRUE(ThrowsInputError([] { MrAdmmIterationLoss(1750, 8000, 0.25, 0.22, 0, 1, 2, 0.5); },
                               {"MrAdmmIterationLoss: N must be >= 1, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { MrAdmmIterationLoss(1750, 8000, 0.25, 0.22, 5, 1, 2, -1); },
                               {"MrAdmmIterationLoss: alpha must be > 0, got -1"}));
  EXPECT_TRUE(ThrowsInputError([] { MrAdmmIterationLoss(1750, 8000, 0.25, 0.0, 5, 1, 0, 1); },
                               {"MrAdmmIterationLoss: rho/N + 2 eta V must be > 0"}));
  EXPECT_TRUE(ThrowsInputError([] { MrAdmmFirstPenaltyOk(1750, 8000, 0.25, 0.22, 5, 0, 2); },
                               {"MrAdmmFirstPenaltyOk: eta1 must be > 0, got 0"}));
  EXPECT_TRUE(ThrowsInputError([] { MrAdmmFirstPenaltyOk(-1750, 8000, 0.25, 0.22, 5, 1, 2); },
                               {"MrAdmmFirstPenaltyOk: C must be > 0, got -1750"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        ComposeBasic({0.5, -0.1});
      },
      {"ComposeBasic: per_iteration[1] must be >= 0, got -0.1"}));
  EXPECT_TRUE(ThrowsInputError([] { ComposeBasic({std::numeric_limits<double>::infinity()}); },
                               {"ComposeBasic: per_iteration[0] must be finite, got inf"}));
}

}  // namespace
}  // namespace dpadmm
