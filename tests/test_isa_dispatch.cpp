// SPDX-License-Identifier: Apache-2.0
// The logistic loss block gives the same bits on every instruction set (solver/logistic_block.h):
// its exp against the scalar portable exp over the whole range, and whole seeded runs with the
// baseline (SSE2) and the AVX2 kernel forced in turn. The AVX2 half skips on a CPU without AVX2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/portable_math_impl.h"
#include "dpadmm/run/run.h"
#include "solver/logistic_block.h"

namespace dpadmm {
namespace {

using detail::Isa;

std::uint64_t Bits(double x) {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Restores the instruction set a test found.
struct IsaGuard {
  Isa saved = detail::ActiveIsa();
  ~IsaGuard() { detail::SetIsa(saved); }
};

TEST(IsaDispatch, BlockExpIsThePortableExpBitForBit) {
  // Every binade of (-800, 0], the subnormal range below -708, the edges, and NaN.
  std::vector<double> x = {0.0,
                           -0.0,
                           -1e-300,
                           -708.0,
                           -708.5,
                           -745.0,
                           -745.2,
                           -800.0,
                           -std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  for (double v = -1e-12; v > -800.0; v *= 1.0137) x.push_back(v);
  for (int k = 0; k < 4000; ++k) x.push_back(-0.2 * k - 0.0123 * (k % 7));
  std::vector<double> e(x.size());
  for (std::size_t b = 0; b < x.size(); b += detail::kLogBlock) {
    const auto len =
        static_cast<std::int64_t>(std::min<std::size_t>(detail::kLogBlock, x.size() - b));
    detail::ExpNonPositiveBlock(x.data() + b, e.data() + b, len);
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = math::impl::Exp(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(e[i])) << x[i];
    } else {
      EXPECT_EQ(Bits(e[i]), Bits(want)) << "x = " << x[i];
    }
  }
}

TEST(IsaDispatch, BaselineIsAlwaysAvailable) {
  IsaGuard guard;
  EXPECT_TRUE(detail::SetIsa(Isa::kBaseline));
  EXPECT_EQ(detail::ActiveIsa(), Isa::kBaseline);
}

TEST(IsaDispatch, BlockIsTheSameOnEveryIsa) {
  IsaGuard guard;
  if (!detail::SetIsa(Isa::kAvx2)) GTEST_SKIP() << "no AVX2 on this CPU or build";
  std::vector<double> z;
  for (int k = 0; k < 1000; ++k) z.push_back(0.037 * (k - 500) + 1e-3 * (k % 13));
  z.push_back(-900.0);
  z.push_back(900.0);
  z.push_back(0.0);
  const auto n = static_cast<std::int64_t>(z.size());
  auto run = [&](Isa isa, std::vector<double>& d1, std::vector<double>& d2) {
    EXPECT_TRUE(detail::SetIsa(isa));
    d1.assign(z.size(), 0.0);
    d2.assign(z.size(), 0.0);
    detail::LogisticSums sums;
    for (std::int64_t b = 0; b < n; b += detail::kLogBlock) {
      detail::LogisticBlock(z.data() + b, std::min(detail::kLogBlock, n - b), 0.3, d1.data() + b,
                            d2.data() + b, sums);
    }
    return sums.Total(0.3);
  };
  std::vector<double> d1a, d2a, d1b, d2b;
  const double sa = run(Isa::kBaseline, d1a, d2a);
  const double sb = run(Isa::kAvx2, d1b, d2b);
  EXPECT_EQ(Bits(sa), Bits(sb));
  for (std::size_t i = 0; i < z.size(); ++i) {
    EXPECT_EQ(Bits(d1a[i]), Bits(d1b[i])) << i;
    EXPECT_EQ(Bits(d2a[i]), Bits(d2b[i])) << i;
  }
}

RunSummary SparseRun(Algorithm algorithm) {
  RunSpec s;
  s.algorithm.Select(algorithm);
  if (algorithm == Algorithm::kDvp) s.algorithm.As<DvpParams>().alpha = 0.5;
  s.data.source = DataSource::kSparse;
  s.data.rows = 3000;
  s.graph.nodes = 4;
  s.graph.edges = 5;
  s.iterations = 15;
  s.seed = 5;
  s.noise_seed = 9;
  s.compute_optimum = false;
  s.engine = runtime::EngineKind::kSerial;
  return RunExperiment(s);
}

TEST(IsaDispatch, SeededRunsAreTheSameOnEveryIsa) {
  IsaGuard guard;
  if (!detail::SetIsa(Isa::kAvx2)) GTEST_SKIP() << "no AVX2 on this CPU or build";
  for (Algorithm a : {Algorithm::kAdmm, Algorithm::kDvp}) {
    ASSERT_TRUE(detail::SetIsa(Isa::kBaseline));
    const RunSummary base = SparseRun(a);
    ASSERT_TRUE(detail::SetIsa(Isa::kAvx2));
    const RunSummary avx2 = SparseRun(a);
    ASSERT_EQ(base.model.size(), avx2.model.size());
    ASSERT_GT(base.model.size(), 0);
    for (Eigen::Index k = 0; k < base.model.size(); ++k) {
      EXPECT_EQ(Bits(base.model[k]), Bits(avx2.model[k])) << ChoiceName(a) << " entry " << k;
    }
    EXPECT_EQ(Bits(base.final.train_loss), Bits(avx2.final.train_loss)) << ChoiceName(a);
  }
}

}  // namespace
}  // namespace dpadmm
