// SPDX-License-Identifier: Apache-2.0
// The secure noise path: noise keys (private and simulation mode), the exact samplers of
// samplers.h (goodness of fit on >= 1e6 draws each), grid membership of releases, and keys
// never appearing in any output.
//
// Every statistical check is calibrated to a false-positive rate of at most 1e-6 (chi-square:
// the Wilson-Hilferty upper 1e-6 quantile; binomial and tail counts: |z| <= 5.0, two-sided
// 5.7e-7; Kolmogorov-Smirnov: D <= sqrt(ln(2 / 1e-6) / (2 n))).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/noise_key.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/privacy/samplers.h"
#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"
#include "run_recorder.h"

namespace dpadmm {

// The test-only accessor declared a friend by NoiseKey.
struct NoiseKeyTestAccess {
  static std::array<std::uint32_t, 8> Words(const NoiseKey& k) { return k.words_; }
};

namespace {

constexpr double kZ = 5.0;  // two-sided 5.7e-7

// Upper 1e-6 quantile of chi-square with df degrees of freedom (Wilson-Hilferty; z = 4.753).
double ChiSquareCritical(int df) {
  const double z = 4.753424, v = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - v + z * std::sqrt(v), 3.0);
}

void ExpectBinomial(std::int64_t hits, std::int64_t n, double p, const std::string& what) {
  const double mean = static_cast<double>(n) * p;
  const double sd = std::sqrt(static_cast<double>(n) * p * (1.0 - p));
  EXPECT_LE(std::abs(static_cast<double>(hits) - mean), kZ * sd)
      << what << ": " << hits << " of " << n << ", expected " << mean;
}

// Chi-square of observed counts against probabilities (cells with expected < 5 are merged into
// their neighbour by the callers' choice of bins).
double ChiSquare(const std::vector<std::int64_t>& observed, const std::vector<double>& p,
                 std::int64_t n) {
  double chi2 = 0.0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double e = p[k] * static_cast<double>(n);
    EXPECT_GE(e, 5.0) << "bin " << k;
    chi2 += (static_cast<double>(observed[k]) - e) * (static_cast<double>(observed[k]) - e) / e;
  }
  return chi2;
}

void ExpectChiSquare(const std::vector<std::int64_t>& observed, const std::vector<double>& p,
                     std::int64_t n, const std::string& what) {
  const double chi2 = ChiSquare(observed, p, n);
  const int df = static_cast<int>(p.size()) - 1;
  EXPECT_LE(chi2, ChiSquareCritical(df)) << what << ": chi2 " << chi2 << " with " << df << " df";
}

// The power check: the same counts against a law 5% off must be rejected (so the test can fail).
void ExpectRejected(const std::vector<std::int64_t>& observed, const std::vector<double>& p,
                    std::int64_t n, const std::string& what) {
  EXPECT_GT(ChiSquare(observed, p, n), ChiSquareCritical(static_cast<int>(p.size()) - 1)) << what;
}

constexpr std::int64_t kDraws = 1000000;

// --- keys and streams --------------------------------------------------------------------------

TEST(NoiseKey, PrivateKeysAreFreshAndSimulationKeysAreDerived) {
  const NoiseKey a = NoiseKey::FromEntropy(), b = NoiseKey::FromEntropy();
  EXPECT_NE(NoiseKeyTestAccess::Words(a), NoiseKeyTestAccess::Words(b));
  EXPECT_EQ(NoiseKeyTestAccess::Words(NoiseKey::FromSeed(5, 2)),
            NoiseKeyTestAccess::Words(NoiseKey::FromSeed(5, 2)));
  EXPECT_NE(NoiseKeyTestAccess::Words(NoiseKey::FromSeed(5, 2)),
            NoiseKeyTestAccess::Words(NoiseKey::FromSeed(5, 3)));
  EXPECT_NE(NoiseKeyTestAccess::Words(NoiseKey::FromSeed(5, 2)),
            NoiseKeyTestAccess::Words(NoiseKey::FromSeed(6, 2)));
  EXPECT_EQ(NoiseKeyTestAccess::Words(NoiseKey::Make(std::nullopt, 0)).size(), 8u);
  // Moving wipes the source.
  NoiseKey moved = NoiseKey::FromSeed(1, 1);
  const auto words = NoiseKeyTestAccess::Words(moved);
  NoiseKey target = std::move(moved);
  EXPECT_EQ(NoiseKeyTestAccess::Words(target), words);
  EXPECT_EQ(NoiseKeyTestAccess::Words(moved), (std::array<std::uint32_t, 8>{}));
  static_assert(!std::is_copy_constructible_v<NoiseKey>);
  static_assert(!std::is_copy_assignable_v<NoiseKey>);
}

TEST(NoiseKey, TheDocumentedDerivation) {
  // noise_key.h's derivation, computed independently by tests/cli/noise_keys.py --print 11 0 / 3
  // (which the CLI test uses to look for keys in the outputs).
  const auto hex = [](const NoiseKey& k) {
    const auto words = NoiseKeyTestAccess::Words(k);
    std::string out;
    for (std::uint32_t w : words) {
      for (int b = 0; b < 4; ++b) {
        char buf[3];
        std::snprintf(buf, sizeof buf, "%02x", (w >> (8 * b)) & 0xffu);
        out += buf;
      }
    }
    return out;
  };
  EXPECT_EQ(hex(NoiseKey::FromSeed(11, 0)),
            "1cf1fefbf138594f6421490d565d3abf6e48511a7204102d04f6968e342993ea");
  EXPECT_EQ(hex(NoiseKey::FromSeed(11, 3)),
            "28bac3ee0656f936eb65f140ac9d3bbfb38d60d3491f618d947c07d10b2a37ae");
}

TEST(NoiseKey, StreamsAreStatelessPerRoundAndPurpose) {
  const NoiseKey key = NoiseKey::FromSeed(9, 4);
  KeyedStream a(key, 3, Purpose::kNoise), b(key, 3, Purpose::kNoise);
  KeyedStream other_round(key, 4, Purpose::kNoise), other_purpose(key, 3, Purpose::kLabelNoise);
  std::set<std::uint64_t> firsts;
  for (int k = 0; k < 100; ++k) {
    const std::uint64_t x = a.NextU64();
    EXPECT_EQ(x, b.NextU64());
    firsts.insert(x);
    firsts.insert(other_round.NextU64());
    firsts.insert(other_purpose.NextU64());
  }
  EXPECT_EQ(firsts.size(), 300u);
}

TEST(NoiseKey, PrivateModeReleasesDifferTwice) {
  // Two releases of the same value with the same noise parameters in private mode.
  std::vector<double> first;
  for (int run = 0; run < 2; ++run) {
    Release release(NoiseKey::FromEntropy(), 0);
    runtime::Outbox out(6);
    ASSERT_TRUE(release.Open(1, 0.0));
    Eigen::VectorXd e(6);
    release.DrawL2Laplace(1.0, e);
    release.Send(Eigen::VectorXd::Constant(6, 0.25) + e, out);
    const std::vector<double> m(out.message().begin(), out.message().end());
    for (double v : m) EXPECT_TRUE(OnGrid(v)) << v;
    if (run == 0) {
      first = m;
    } else {
      EXPECT_NE(m, first);
    }
  }
}

// --- exact samplers ----------------------------------------------------------------------------

TEST(Samplers, BernoulliExpMatchesExpMinusGamma) {
  const NoiseKey key = NoiseKey::FromSeed(1, 0);
  KeyedStream s(key, 0, Purpose::kNoise);
  const std::pair<std::uint64_t, std::uint64_t> gammas[] = {{3, 10}, {1, 1}, {27, 10}};
  for (const auto& [num, den] : gammas) {
    std::int64_t hits = 0;
    for (std::int64_t k = 0; k < kDraws; ++k) hits += SampleBernoulliExp(s, num, den);
    ExpectBinomial(hits, kDraws, std::exp(-static_cast<double>(num) / static_cast<double>(den)),
                   "Bernoulli(exp(-" + std::to_string(num) + "/" + std::to_string(den) + "))");
  }
  EXPECT_TRUE(SampleBernoulliExp(s, 0, 7));  // exp(0) = 1
  EXPECT_THROW(SampleBernoulliExp(s, 1, 0), std::logic_error);
}

TEST(Samplers, DiscreteLaplaceFitsItsLawAndTail) {
  const NoiseKey key = NoiseKey::FromSeed(2, 0);
  KeyedStream s(key, 0, Purpose::kNoise);
  const std::uint64_t t = 3;  // P(x) proportional to exp(-|x| / 3)
  const double r = std::exp(-1.0 / 3.0);
  // Bins -30..30, then the two tails |x| > 30 together.
  constexpr int kMax = 30;
  const auto law = [&](double scale) {
    const double q = std::exp(-1.0 / scale);
    std::vector<double> p(2 * kMax + 2, 0.0);
    double inside = 0.0;
    for (int x = -kMax; x <= kMax; ++x) {
      inside += p[static_cast<std::size_t>(x + kMax)] =
          (1.0 - q) / (1.0 + q) * std::pow(q, std::abs(static_cast<double>(x)));
    }
    p.back() = 1.0 - inside;
    return p;
  };
  const std::vector<double> p = law(3.0);
  std::vector<std::int64_t> observed(2 * kMax + 2, 0);
  std::int64_t far = 0;  // |x| >= 10 t
  for (std::int64_t k = 0; k < kDraws; ++k) {
    const std::int64_t x = SampleDiscreteLaplace(s, 1, t);
    if (std::abs(x) > kMax) {
      ++observed.back();
    } else {
      ++observed[static_cast<std::size_t>(x + kMax)];
    }
    far += std::abs(x) >= 30;
  }
  ExpectChiSquare(observed, p, kDraws, "discrete Laplace t = 3");
  ExpectRejected(observed, law(3.15), kDraws, "discrete Laplace against t = 3.15");
  // Tail mass P(|X| >= 30) = 2 r^30 / (1 + r).
  ExpectBinomial(far, kDraws, 2.0 * std::pow(r, 30.0) / (1.0 + r), "discrete Laplace tail");
}

TEST(Samplers, DiscreteGaussianFitsItsLawAndTail) {
  const NoiseKey key = NoiseKey::FromSeed(3, 0);
  KeyedStream s(key, 0, Purpose::kNoise);
  const std::uint64_t sigma2 = 10;
  constexpr int kMax = 11;  // bins -11..11, tails |x| > 11 together
  const auto law = [&](double variance) {
    std::vector<double> w(2 * kMax + 2, 0.0);
    double z = 0.0;
    for (int x = -200; x <= 200; ++x) {
      const double v = std::exp(-static_cast<double>(x) * x / (2.0 * variance));
      z += v;
      if (std::abs(x) <= kMax) {
        w[static_cast<std::size_t>(x + kMax)] = v;
      } else {
        w.back() += v;
      }
    }
    for (double& v : w) v /= z;
    return w;
  };
  const std::vector<double> w = law(static_cast<double>(sigma2));
  std::vector<std::int64_t> observed(w.size(), 0);
  std::int64_t far = 0;
  for (std::int64_t k = 0; k < kDraws; ++k) {
    const std::int64_t x = SampleDiscreteGaussian(s, sigma2);
    if (std::abs(x) > kMax) {
      ++observed.back();
    } else {
      ++observed[static_cast<std::size_t>(x + kMax)];
    }
    far += std::abs(x) > kMax;
  }
  ExpectChiSquare(observed, w, kDraws, "discrete Gaussian sigma2 = 10");
  ExpectRejected(observed, law(10.5), kDraws, "discrete Gaussian against sigma2 = 10.5");
  ExpectBinomial(far, kDraws, w.back(), "discrete Gaussian tail |x| > 11");
}

TEST(Samplers, DiscreteGaussianOnTheGridIsGaussianAndOnTheGrid) {
  // sigma = 0.01 on the grid 2^-16: the lattice Gaussian with sigma / step = 655.36, whose CDF
  // at the cell midpoints is the normal CDF within 1e-5 (KS threshold 2.7e-3 at n = 1e6).
  const NoiseKey key = NoiseKey::FromSeed(4, 0);
  KeyedStream s(key, 0, Purpose::kNoise);
  const double sigma = 0.01;
  Eigen::VectorXd v(1000);
  std::vector<double> all;
  all.reserve(kDraws);
  double sum2 = 0.0;
  for (int block = 0; block < kDraws / 1000; ++block) {
    EXPECT_EQ(DrawDiscreteGaussianGrid(s, sigma, v), kGridStep);
    for (Eigen::Index k = 0; k < v.size(); ++k) {
      ASSERT_TRUE(OnGrid(v[k])) << v[k];
      all.push_back(v[k]);
      sum2 += v[k] * v[k];
    }
  }
  std::sort(all.begin(), all.end());
  double d = 0.0;
  for (std::size_t k = 0; k < all.size();) {
    std::size_t j = k;
    while (j < all.size() && all[j] == all[k]) ++j;  // the lattice point's cumulative count
    const double cdf = 0.5 * std::erfc(-(all[k] + 0.5 * kGridStep) / (sigma * std::sqrt(2.0)));
    d = std::max(d, std::abs(static_cast<double>(j) / static_cast<double>(all.size()) - cdf));
    k = j;
  }
  EXPECT_LE(d, std::sqrt(std::log(2.0 / 1e-6) / (2.0 * static_cast<double>(kDraws))));
  // The variance used is sigma^2 rounded up on the lattice (never below).
  EXPECT_NEAR(sum2 / static_cast<double>(kDraws), sigma * sigma, 6.0 * sigma * sigma * 1.5e-3);
  // Large sigma: a coarser power-of-two step, still on the grid.
  EXPECT_EQ(GaussianGridStep(1000.0), 0x1.0p-15);
  Eigen::VectorXd big(100);
  const double step = DrawDiscreteGaussianGrid(s, 1000.0, big);
  for (Eigen::Index k = 0; k < big.size(); ++k) {
    EXPECT_TRUE(OnGrid(big[k], step));
    EXPECT_TRUE(OnGrid(big[k]));
  }
}

TEST(Samplers, RandomizedResponseFlipsWithOneOverOnePlusExpEps) {
  const NoiseKey key = NoiseKey::FromSeed(5, 0);
  KeyedStream s(key, 0, Purpose::kLabelNoise);
  for (double eps : {0.5, 2.0}) {
    std::int64_t flips = 0;
    for (std::int64_t k = 0; k < kDraws; ++k) flips += SampleRandomizedResponseFlip(s, eps);
    ExpectBinomial(flips, kDraws, 1.0 / (1.0 + std::exp(eps)),
                   "flip at eps " + std::to_string(eps));
  }
  for (int k = 0; k < 1000; ++k) EXPECT_FALSE(SampleRandomizedResponseFlip(s, 0.0));
}

TEST(NoiseKey, NoiseSeedInTheJsonSpec) {
  RunSpec s = RunSpec::Defaults(Algorithm::kDvp);
  EXPECT_EQ(SpecToJson(s).find("noise_seed"), std::string::npos);  // private: absent
  ApplySpecJson(R"({"noise_seed": 12})", "x.json", s);
  ASSERT_TRUE(s.noise_seed.has_value());
  EXPECT_EQ(*s.noise_seed, 12u);
  EXPECT_EQ(s.noise_mode(), NoiseMode::kSimulation);
  EXPECT_NE(SpecToJson(s).find("\"noise_seed\": 12"), std::string::npos);
  ApplySpecJson(R"({"noise_seed": null})", "x.json", s);
  EXPECT_FALSE(s.noise_seed.has_value());
  EXPECT_THROW(ApplySpecJson(R"({"noise_seed": -1})", "x.json", s), InputError);
  RunInfo info;
  info.noisy = true;
  info.noise_mode = NoiseMode::kSimulation;
  EXPECT_STREQ(NoiseLabel(info), "simulation: noise reproducible from the seed");
  EXPECT_STREQ(NoiseModeName(info), "simulation");
  info.noise_mode = NoiseMode::kPrivate;
  EXPECT_STREQ(NoiseLabel(info), "private: noise keys from the operating system, not stored");
  info.noisy = false;  // a non-private algorithm draws no noise, whatever the mode
  EXPECT_STREQ(NoiseLabel(info), "no noise: the algorithm is not private");
  EXPECT_STREQ(NoiseModeName(info), "none");
}

TEST(Samplers, GridRoundingAndMembership) {
  EXPECT_EQ(RoundToGrid(0.3), std::nearbyint(0.3 * 65536.0) / 65536.0);
  EXPECT_TRUE(OnGrid(RoundToGrid(0.3)));
  EXPECT_FALSE(OnGrid(0.3));
  EXPECT_EQ(RoundToGrid(1e300), kGridLimit);
  EXPECT_EQ(RoundToGrid(-1e300), -kGridLimit);
  EXPECT_TRUE(std::isnan(RoundToGrid(std::nan(""))));
  EXPECT_DOUBLE_EQ(GridSensitivityL2(4), 2.0 * kGridStep);
  // Sums of lattice values below the clamp are exact.
  const double a = RoundToGrid(12345.678), b = RoundToGrid(-0.000123);
  EXPECT_TRUE(OnGrid(a + b));
}

// --- keys never leave the process --------------------------------------------------------------

std::vector<std::string> KeyForms(const std::array<std::uint32_t, 8>& words) {
  std::string raw(reinterpret_cast<const char*>(words.data()), 32);
  std::vector<std::string> forms = {raw};
  std::string hex_lower, hex_upper;
  for (unsigned char c : raw) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", c);
    hex_lower += buf;
    std::snprintf(buf, sizeof buf, "%02X", c);
    hex_upper += buf;
  }
  forms.push_back(hex_lower);
  forms.push_back(hex_upper);
  // Each word on its own (decimal and hex) is too short to be meaningful in text; its 8-byte
  // pairs in hex are not.
  forms.push_back(hex_lower.substr(0, 16));
  forms.push_back(hex_lower.substr(48, 16));
  return forms;
}

TEST(NoiseKey, KeysNeverAppearInTraceSummaryStdoutOrStderr) {
  for (const char* name : {"dvp", "pdml"}) {
    RunSpec s;
    s.data.source = DataSource::kTwonorm;
    s.data.rows = 600;
    s.graph.nodes = 4;
    s.algorithm.Select(ParseChoice<Algorithm>(name, "algorithm"));
    if (std::string(name) == "dvp") s.algorithm.As<DvpParams>().alpha = 0.5;
    if (std::string(name) == "pdml") {
      s.algorithm.As<PdmlParams>().label_eps = 1.0;
      s.algorithm.As<PdmlParams>().R = 0.1;
      s.algorithm.As<PdmlParams>().V = 0.01;
    }
    s.iterations = 5;
    s.noise_seed = 77;
    std::string bytes;
    struct Writer : RunObserver {
      std::string* out;
      Family family;
      void OnStart(const RunInfo& info) override { *out += RunInfoToJson(info); }
      void OnRound(const RoundMetrics& m) override {
        *out += MetricsToCsvRow(m, family) + "\n" + MetricsToJsonLine(m, family) + "\n";
      }
    } writer;
    writer.out = &bytes;
    writer.family = s.family();
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const RunSummary summary = RunExperiment(s, &writer);
    bytes += ::testing::internal::GetCapturedStdout();
    bytes += ::testing::internal::GetCapturedStderr();
    bytes += SummaryToJson(summary) + SpecToJson(s);
    ASSERT_GT(bytes.size(), 1000u);
    for (int node = 0; node < 4; ++node) {
      const auto words = NoiseKeyTestAccess::Words(NoiseKey::FromSeed(77, node));
      for (const std::string& form : KeyForms(words)) {
        EXPECT_EQ(bytes.find(form), std::string::npos) << name << ": node " << node << "'s key";
      }
    }
  }
}

}  // namespace
}  // namespace dpadmm
