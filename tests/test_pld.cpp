// SPDX-License-Identifier: Apache-2.0
// The privacy accountant: PLD against closed forms (analytic Gaussian, optimal composition of
// pure-epsilon mechanisms), PLD <= RDP <= advanced composition, heterogeneous composition.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/pld.h"
#include "dpadmm/privacy/rdp.h"
#include "dpadmm/privacy/sharing_accounting.h"
#include "privacy/pld_math.h"
#include "test_helpers.h"

namespace dpadmm {
namespace {

using test::ThrowsInputError;

constexpr double kTolerance = 1e-3;  // relative, PLD vs exact

TEST(PldMath, ErfcMatchesTheCLibrary) {
  for (double x = -5.5; x < 26.0; x += 0.01) {
    const double want = std::erfc(x);
    EXPECT_NEAR(pld_detail::Erfc(x), want, 2e-13 * want) << x;
  }
  EXPECT_EQ(pld_detail::Erfc(40.0), 0.0);
  EXPECT_EQ(pld_detail::NormalCdf(0.0), 0.5);
}

TEST(Pld, IdentityAndBasicShape) {
  const PrivacyLossDistribution id;
  EXPECT_EQ(id.DeltaForEpsilon(0.0), 0.0);
  EXPECT_EQ(id.EpsilonForDelta(1e-6), 0.0);
  const auto rr = PrivacyLossDistribution::PureEpsilon(1.0);
  double total = rr.infinity_mass();
  for (double p : rr.probabilities()) total += p;
  EXPECT_NEAR(total, 1.0, 1e-15);
  // Pure eps-DP: delta(eps) = 0 at the (grid) epsilon, positive just below.
  EXPECT_EQ(rr.DeltaForEpsilon(1.0), 0.0);
  EXPECT_GT(rr.DeltaForEpsilon(0.99), 0.0);
  // Randomized response: delta(e) = (e^eps - e^e) / (1 + e^eps) for e < eps.
  EXPECT_NEAR(rr.DeltaForEpsilon(0.5), (std::exp(1.0) - std::exp(0.5)) / (1.0 + std::exp(1.0)),
              1e-14);
}

TEST(Pld, RejectsBadInput) {
  EXPECT_TRUE(
      ThrowsInputError([] { (void)PrivacyLossDistribution::Gaussian(1.0, 0.0); }, {"sigma"}));
  EXPECT_TRUE(
      ThrowsInputError([] { (void)PrivacyLossDistribution::Laplace(-1.0, 1.0); }, {"sensitivity"}));
  EXPECT_TRUE(
      ThrowsInputError([] { (void)PrivacyLossDistribution::PureEpsilon(NAN); }, {"epsilon"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        PldOptions o;
        o.value_discretization = 0.0;
        (void)PrivacyLossDistribution::PureEpsilon(1.0, o);
      },
      {"value_discretization"}));
  EXPECT_TRUE(ThrowsInputError(
      [] {
        PldOptions coarse;
        coarse.value_discretization = 1e-3;
        (void)PrivacyLossDistribution::PureEpsilon(1.0).Compose(
            PrivacyLossDistribution::PureEpsilon(1.0, coarse));
      },
      {"same interval"}));
  EXPECT_TRUE(
      ThrowsInputError([] { (void)PrivacyLossDistribution().EpsilonForDelta(0.0); }, {"delta"}));
  Accountant acc;
  EXPECT_TRUE(ThrowsInputError([&] { acc.AddGaussian(1.0, -2.0); }, {"sigma"}));
  EXPECT_TRUE(ThrowsInputError(
      [&] {
        acc.Add({MechanismKind::kDiscreteGaussian, 1.5, 2.0, 0.0});
      },
      {"integer"}));
  EXPECT_EQ(acc.release_count(), 0);
  EXPECT_EQ(acc.Epsilon(1e-5), 0.0);
  EXPECT_EQ(acc.Delta(0.0), 0.0);
}

// k composed Gaussians = one Gaussian of sensitivity sqrt(k) (Balle and Wang 2018); and the
// ordering PLD <= RDP <= advanced composition on the same grid.
TEST(Pld, ComposedGaussiansEqualTheAnalyticGaussian) {
  for (double sigma : {0.5, 1.0, 2.0, 5.0}) {
    const auto one = PrivacyLossDistribution::Gaussian(1.0, sigma);
    for (std::int64_t k : {1, 10, 100}) {
      const auto pld = one.SelfCompose(k);
      const double d = std::sqrt(static_cast<double>(k));
      for (double delta : {1e-6, 1e-5, 1e-3}) {
        const double exact = AnalyticGaussianEpsilon(d, sigma, delta);
        const double got = pld.EpsilonForDelta(delta);
        EXPECT_GE(got, exact * (1.0 - 1e-12)) << sigma << " " << k << " " << delta;
        EXPECT_LE(got, exact * (1.0 + kTolerance)) << sigma << " " << k << " " << delta;
        // delta at the exact epsilon: pessimistic, and within the same tolerance in epsilon.
        EXPECT_GE(pld.DeltaForEpsilon(exact), delta * (1.0 - 1e-9));
        EXPECT_LE(pld.DeltaForEpsilon(exact * (1.0 + kTolerance)), delta);
        // Advanced composition of the per-release analytic (eps0, delta/(2k)), delta' = delta/2.
        RdpAccountant rdp;
        rdp.AddGaussian(1.0, sigma, k);
        const double eps0 = AnalyticGaussianEpsilon(1.0, sigma, 0.5 * delta / k);
        EXPECT_LE(got, rdp.Epsilon(delta)) << sigma << " " << k << " " << delta;
        EXPECT_LE(rdp.Epsilon(delta), AdvancedCompositionEpsilon(eps0, k, 0.5 * delta))
            << sigma << " " << k << " " << delta;
      }
    }
  }
}

// A strong mechanism's epsilon lies beyond e^eps's overflow (709.78): it must not be capped
// there. For mu = D / sigma, delta(mu^2 / 2) is about 1/2 - 1/(mu sqrt(2 pi)) > 1e-5, so the
// epsilon at delta 1e-5 exceeds mu^2 / 2 (and Phi(-a + b) = delta pins it from above).
TEST(Pld, AnalyticGaussianEpsilonBeyondExpOverflow) {
  for (const double mu : {40.0, 70.0, 100.0}) {
    const double e = AnalyticGaussianEpsilon(mu, 1.0, 1e-5);
    EXPECT_GT(e, 0.5 * mu * mu) << "mu " << mu;
    EXPECT_LT(e, 0.5 * mu * mu + 5.0 * mu) << "mu " << mu;
    EXPECT_NEAR(AnalyticGaussianDelta(mu, 1.0, e), 1e-5, 1e-9) << "mu " << mu;
  }
  // Continuity across the switch to the log form at eps = 700.
  const double mu = std::sqrt(2.0 * 700.0);
  EXPECT_NEAR(AnalyticGaussianDelta(mu, 1.0, 700.0 - 1e-10), AnalyticGaussianDelta(mu, 1.0, 700.0),
              1e-11);
}

TEST(Pld, AnalyticGaussianIsTheKnownCurve) {
  // mu = 1 at eps = 0: delta = Phi(1/2) - Phi(-1/2) = 0.38292492254802624 (erf(1/(2 sqrt 2))).
  EXPECT_NEAR(AnalyticGaussianDelta(1.0, 1.0, 0.0), 0.38292492254802624, 1e-14);
  // Inverse of the forward map.
  const double e = AnalyticGaussianEpsilon(1.0, 1.0, 1e-5);
  EXPECT_NEAR(AnalyticGaussianDelta(1.0, 1.0, e), 1e-5, 1e-14);
  // Theorem 3 of 001 (classical Gaussian mechanism) is never tighter than the analytic one.
  EXPECT_LT(e, SharingEpsilonForSigma(1.0, 1e-5, 1.0));
}

// Kairouz, Oh and Viswanath 2015, Thm 3.3 at delta0 = 0, written out independently:
// delta_i = sum_{l=0}^{i-1} C(k,l) (e^{(k-l) eps} - e^{(k-2i+l) eps}) / (1 + e^eps)^k.
double KovDelta(double eps, int k, int i) {
  double s = 0.0;
  for (int l = 0; l < i; ++l) {
    const double c =
        std::exp(std::lgamma(k + 1.0) - std::lgamma(l + 1.0) - std::lgamma(k - l + 1.0));
    s += c * (std::exp((k - l) * eps) - std::exp((k - 2 * i + l) * eps));
  }
  return s / std::pow(1.0 + std::exp(eps), k);
}

TEST(Pld, OptimalCompositionIsTheoremThreeThree) {
  for (double eps : {0.1, 0.5, 1.0}) {
    for (int k : {1, 10, 50}) {
      for (int i = 0; i <= k / 2; ++i) {
        const double want = KovDelta(eps, k, i);
        EXPECT_NEAR(OptimalCompositionDelta(eps, k, (k - 2 * i) * eps), want, 1e-12 * want + 1e-300)
            << eps << " " << k << " " << i;
      }
    }
  }
}

TEST(Pld, PureEpsilonCompositionEqualsTheOptimalComposition) {
  for (double eps : {0.1, 0.5, 1.0}) {
    const auto one = PrivacyLossDistribution::PureEpsilon(eps);
    for (std::int64_t k : {1, 10, 50}) {
      const auto pld = one.SelfCompose(k);
      for (double delta : {1e-6, 1e-5, 1e-3}) {
        const double exact = OptimalCompositionEpsilon(eps, k, delta);
        const double got = pld.EpsilonForDelta(delta);
        EXPECT_GE(got, exact * (1.0 - 1e-9)) << eps << " " << k << " " << delta;
        EXPECT_LE(got, exact * (1.0 + kTolerance)) << eps << " " << k << " " << delta;
        EXPECT_GE(pld.DeltaForEpsilon(exact), delta * (1.0 - 1e-6));
      }
    }
  }
}

// Laplace: delta(e) = 1 - e^{(e - e0)/2} for e < e0 (one release).
TEST(Pld, LaplaceMatchesItsHockeyStickCurve) {
  for (double e0 : {0.1, 1.0, 3.0}) {
    const auto pld = PrivacyLossDistribution::Laplace(2.0, 2.0 / e0);
    for (double f : {0.0, 0.3, 0.9}) {
      const double e = f * e0;
      const double exact = -std::expm1(0.5 * (e - e0));
      const double got = pld.DeltaForEpsilon(e);
      EXPECT_GE(got, exact * (1.0 - 1e-12));
      EXPECT_LE(got, exact * (1.0 + 1e-3) + 1e-4 * e0);
    }
    EXPECT_EQ(pld.DeltaForEpsilon(e0), 0.0);
    // A Laplace release is e0-DP, so it is never worse than randomized response with e0.
    const auto rr = PrivacyLossDistribution::PureEpsilon(e0).SelfCompose(10);
    const auto lap = pld.SelfCompose(10);
    EXPECT_LE(lap.EpsilonForDelta(1e-5), rr.EpsilonForDelta(1e-5));
  }
}

// Discrete Gaussian: delta(eps) = sum_x max(0, P(x) - e^eps P(x - D)) computed here directly.
TEST(Pld, DiscreteGaussianMatchesItsHockeyStick) {
  for (double sigma : {0.7, 2.0, 5.0}) {
    for (std::int64_t d : {1, 3}) {
      const auto pld = PrivacyLossDistribution::DiscreteGaussian(d, sigma);
      double z = 0.0;
      for (int x = -400; x <= 400; ++x) z += std::exp(-x * x / (2 * sigma * sigma));
      const auto p = [&](double x) { return std::exp(-x * x / (2 * sigma * sigma)) / z; };
      for (double eps : {0.1, 0.5, 1.0, 2.0}) {
        double exact = 0.0;
        for (int x = -400; x <= 400; ++x) exact += std::max(0.0, p(x) - std::exp(eps) * p(x - d));
        const double got = pld.DeltaForEpsilon(eps);
        EXPECT_GE(got, exact * (1.0 - 1e-9)) << sigma << " " << d << " " << eps;
        EXPECT_LE(got, exact * (1.0 + 1e-3) + 1e-12) << sigma << " " << d << " " << eps;
      }
      Accountant acc;
      acc.AddDiscreteGaussian(d, sigma, 3);
      EXPECT_NEAR(acc.Epsilon(1e-5), pld.SelfCompose(3).EpsilonForDelta(1e-5), 1e-9);
      EXPECT_LE(acc.Epsilon(1e-5), acc.RdpEpsilon(1e-5));
      // Close to the continuous Gaussian for sigma >= 2 (Canonne, Kamath and Steinke 2020).
      if (sigma >= 2.0) {
        const double cont = AnalyticGaussianEpsilon(static_cast<double>(d), sigma, 1e-5);
        EXPECT_NEAR(pld.EpsilonForDelta(1e-5), cont, 0.01 * cont);
      }
    }
  }
}

TEST(Pld, LaplaceRdpLimits) {
  // alpha -> infinity: e0; alpha -> 1: KL = e0 + e^{-e0} - 1.
  EXPECT_NEAR(LaplaceRdp(1e7, 1.0, 1.0), 1.0, 1e-6);
  EXPECT_NEAR(LaplaceRdp(1.0 + 1e-7, 1.0, 1.0), std::exp(-1.0), 1e-6);
  // Pure eps: alpha -> 1 gives KL of randomized response, eps tanh(eps/2).
  EXPECT_NEAR(PureEpsilonRdp(1.0 + 1e-7, 0.5), 0.5 * std::tanh(0.25), 1e-6);
}

// The tight accountant is below the RDP bound, which is below advanced composition.
TEST(Pld, PldBelowRdpBelowAdvancedComposition) {
  for (double eps : {0.1, 0.5, 1.0}) {
    const auto one = PrivacyLossDistribution::PureEpsilon(eps);
    for (std::int64_t k : {1, 10, 50}) {
      const auto pld = one.SelfCompose(k);
      RdpAccountant rdp;
      rdp.AddPureEpsilon(eps, k);
      for (double delta : {1e-6, 1e-5, 1e-3}) {
        const double p = pld.EpsilonForDelta(delta);
        const double r = rdp.Epsilon(delta);
        const double a = AdvancedCompositionEpsilon(eps, k, delta);
        EXPECT_LE(p, r) << eps << " " << k << " " << delta;
        EXPECT_LE(r, a) << eps << " " << k << " " << delta;
        EXPECT_LE(rdp.Delta(p), 1.0);
        EXPECT_GE(rdp.Delta(p), delta * (1.0 - 1e-9));  // RDP's delta at PLD's eps is larger
      }
    }
  }
}

// Gaussians of different sigma compose to one Gaussian with 1/sigma^2 = sum 1/sigma_i^2: by
// numerical convolution of their PLDs, and in the accountant (which composes them analytically).
TEST(Pld, HeterogeneousGaussiansEqualOneGaussian) {
  const std::vector<double> sigmas = {0.8, 1.3, 2.0, 3.7, 5.0, 1.1};
  PrivacyLossDistribution pld;
  Accountant acc;
  double precision = 0.0;
  for (int round = 0; round < 12; ++round) {
    const double s = sigmas[static_cast<std::size_t>(round) % sigmas.size()];
    pld = pld.Compose(PrivacyLossDistribution::Gaussian(1.0, s));
    acc.AddGaussian(1.0, s);
    precision += 1.0 / (s * s);
  }
  const double sigma_eff = 1.0 / std::sqrt(precision);
  for (double delta : {1e-6, 1e-5, 1e-3}) {
    const double exact = AnalyticGaussianEpsilon(1.0, sigma_eff, delta);
    const double got = pld.EpsilonForDelta(delta);
    EXPECT_GE(got, exact * (1.0 - 1e-12));
    EXPECT_LE(got, exact * (1.0 + kTolerance));
    EXPECT_NEAR(acc.Epsilon(delta), exact, 1e-9 * exact);
    EXPECT_LE(acc.Epsilon(delta), acc.RdpEpsilon(delta));
  }
  EXPECT_EQ(acc.release_count(), 12);
  // The accountant's PLD (one discretised Gaussian) agrees too.
  EXPECT_LE(acc.Pld().EpsilonForDelta(1e-5),
            AnalyticGaussianEpsilon(1.0, sigma_eff, 1e-5) * (1.0 + kTolerance));
}

TEST(Pld, AccountantMixesMechanismsAndCachesIncrementally) {
  Accountant all_at_once;
  Accountant round_by_round;
  for (int r = 0; r < 12; ++r) {
    const MechanismRelease g{MechanismKind::kGaussian, 1.0, 2.0 + (r % 3), 0.0};
    const MechanismRelease l{MechanismKind::kLaplace, 1.0, 5.0, 0.0};
    const MechanismRelease p{MechanismKind::kPureEpsilon, 0.0, 1.0, 0.05};
    all_at_once.Add(g);
    all_at_once.Add(l);
    all_at_once.Add(p);
    round_by_round.Add(g);
    round_by_round.Add(l);
    round_by_round.Add(p);
    (void)round_by_round.Epsilon(1e-5);  // folds the cache every round
  }
  const double a = all_at_once.Epsilon(1e-5);
  const double b = round_by_round.Epsilon(1e-5);
  EXPECT_NEAR(a, b, 12 * 3 * 1e-4);  // only the grid rounding differs
  EXPECT_LE(a, all_at_once.RdpEpsilon(1e-5));
  // Basic composition of the pure parts (12 (0.2 + 0.05)) with the Gaussians' (eps, 1e-5) is
  // larger: 1 / sigma_eff^2 = 4 (1/4 + 1/9 + 1/16).
  const double sigma_eff = 1.0 / std::sqrt(4.0 * (0.25 + 1.0 / 9.0 + 1.0 / 16.0));
  EXPECT_LT(a, 12 * (0.2 + 0.05) + AnalyticGaussianEpsilon(1.0, sigma_eff, 1e-5));
  EXPECT_GT(a, AnalyticGaussianEpsilon(1.0, sigma_eff, 1e-5));
  // delta(eps) and eps(delta) are inverse.
  EXPECT_NEAR(all_at_once.Delta(a), 1e-5, 1e-9);
}

// Figures for the documentation (not a check): run with
//   build/tests/dpadmm_tests --gtest_also_run_disabled_tests --gtest_filter='*Report*'
TEST(PldReport, DISABLED_Figures) {
  using Clock = std::chrono::steady_clock;
  // 001 Corollary 1 setting (bench/README.md, fig3-001): T = 30 iterations, each a Gaussian with
  // Theorem 3's sigma for eps = 1, delta = 1e-5 (sigma / C = sqrt(2 ln 1.25e5)).
  {
    const double sigma = SharingGaussianSigma(1.0, 1e-5, 1.0);
    const int t = 30;
    Accountant acc;
    acc.AddGaussian(1.0, sigma, t);
    for (double delta : {1e-5, 3.1e-4}) {
      std::printf(
          "001 Cor.1: T=%d sigma/C=%.6f delta=%g: accountant eps=%.6f PLD eps=%.6f"
          " (30-fold self-composition %.6f) RDP eps=%.6f analytic=%.6f Cor.1 eps'=%.6f\n",
          t, sigma, delta, acc.Epsilon(delta), acc.Pld().EpsilonForDelta(delta),
          PrivacyLossDistribution::Gaussian(1.0, sigma).SelfCompose(t).EpsilonForDelta(delta),
          acc.RdpEpsilon(delta), AnalyticGaussianEpsilon(std::sqrt(30.0), sigma, delta),
          SharingTotalEpsilon(1.0, t, 1e-5));
    }
  }
  // DVP / PVP (004 Theorem 1: each iteration alpha-DP, pure): the plain sum T alpha that the
  // programs report against the optimal composition, T = 100 (fig5-003 and fig3-004 settings).
  for (double alpha : {0.05, 0.1, 0.156, 0.2, 0.301, 0.5, 0.591, 1.0, 2.0, 5.0}) {
    const int t = 100;
    Accountant acc;
    acc.AddPureEpsilon(alpha, t);
    for (double delta : {1e-6, 1e-5}) {
      std::printf(
          "DVP/PVP alpha=%g T=%d delta=%g: plain sum=%.4f optimal=%.4f PLD=%.4f RDP=%.4f"
          " advanced=%.4f\n",
          alpha, t, delta, ComposeBasic(std::vector<double>(t, alpha)),
          OptimalCompositionEpsilon(alpha, t, delta), acc.Epsilon(delta), acc.RdpEpsilon(delta),
          AdvancedCompositionEpsilon(alpha, t, delta));
    }
  }
  // Timing: heterogeneous rounds (sigma cycling over 40 values, a Laplace release every 10th
  // round and a pure-eps release every 10th), (a) adding every round and querying at the end,
  // (b) querying epsilon(1e-5) after every round.
  for (int rounds : {100, 1000}) {
    for (double h : {1e-4, 1e-3}) {
      for (bool every_round : {false, true}) {
        if (every_round && rounds == 1000 && h < 1e-3) continue;  // about 1 s per round
        AccountantOptions o;
        o.pld.value_discretization = h;
        Accountant acc(o);
        const auto t0 = Clock::now();
        double eps = 0.0;
        for (int r = 0; r < rounds; ++r) {
          acc.AddGaussian(1.0, 4.0 + 0.1 * (r % 40));
          if (r % 10 == 0) acc.AddLaplace(1.0, 20.0);
          if (r % 10 == 5) acc.AddPureEpsilon(0.01);
          if (every_round) eps = acc.Epsilon(1e-5);
        }
        eps = acc.Epsilon(1e-5);
        const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
        std::printf(
            "timing: %d rounds h=%g query %s: %.3f s (%.2f ms/round), eps(1e-5)=%.5f"
            " RDP=%.5f points=%zu\n",
            rounds, h, every_round ? "every round" : "at the end", secs, 1e3 * secs / rounds, eps,
            acc.RdpEpsilon(1e-5), acc.Pld().probabilities().size());
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace
}  // namespace dpadmm

namespace dpadmm {
namespace {

// The accountant's values are built from basic operations, sqrt and the portable exp/log only,
// so their bits are pinned: these were produced natively and identically by an Emscripten build
// run under node. A change here means outputs that quote them change too. (Changed once, on
// purpose: the Laplace and Gaussian continuous parts connect the dots instead of rounding up;
// each figure went down by 1e-5 .. 3e-4 relative, the exact values being lower still.)
TEST(Pld, BitsArePinned) {
  const auto g = PrivacyLossDistribution::Gaussian(1, 2).SelfCompose(10);
  EXPECT_EQ(g.EpsilonForDelta(1e-5), 0x1.e0b8c324f1792p+2);
  EXPECT_EQ(g.DeltaForEpsilon(1.0), 0x1.68fa7e996dff9p-2);
  const auto m = PrivacyLossDistribution::Laplace(1, 3)
                     .Compose(PrivacyLossDistribution::PureEpsilon(0.2).SelfCompose(5))
                     .Compose(PrivacyLossDistribution::DiscreteGaussian(1, 1.5));
  EXPECT_EQ(m.EpsilonForDelta(1e-6), 0x1.f117488390755p+1);
  EXPECT_EQ(m.infinity_mass(), 0x1.1ce9aaff8c47fp-50);
  Accountant a;
  a.AddGaussian(1, 3, 20);
  a.AddLaplace(1, 10, 4);
  a.AddPureEpsilon(0.1, 7);
  EXPECT_EQ(a.Epsilon(1e-5), 0x1.ccbf5c4f4c8d9p+2);
  EXPECT_EQ(a.RdpEpsilon(1e-5), 0x1.efb563de3b848p+2);
  EXPECT_EQ(a.Delta(2.0), 0x1.361441ec80cbap-3);
  EXPECT_EQ(AnalyticGaussianEpsilon(2, 3, 1e-6), 0x1.8c7f79dac92p+1);
  EXPECT_EQ(OptimalCompositionEpsilon(0.3, 40, 1e-5), 0x1.1a32fbd44f08p+3);
  EXPECT_EQ(AdvancedCompositionEpsilon(0.3, 40, 1e-5), 0x1.a9b1193636c94p+3);
}

}  // namespace
}  // namespace dpadmm
