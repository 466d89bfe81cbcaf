// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/bounds_release.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "dpadmm/privacy/noise_key.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

constexpr int kBoundsEpsilonBits = 20;  // epsilon is quantised to multiples of 2^-20

// Adds one row's d values to the feature-major histogram `hist`.
void CountRow(std::int64_t* hist, const Eigen::VectorXd& row) {
  for (Eigen::Index j = 0; j < row.size(); ++j) ++hist[j * kBoundsBins + BoundsBin(row[j])];
}

}  // namespace

int BoundsBin(double x) {
  if (!(std::abs(x) >= std::ldexp(1.0, kBoundsMinExponent - 1))) return kBoundsMagnitudes;
  int e = 0;
  (void)std::frexp(x, &e);  // |x| in [2^(e-1), 2^e), exact
  const int m = std::min(e, kBoundsMaxExponent) - kBoundsMinExponent + 1;
  return x > 0.0 ? kBoundsMagnitudes + m : kBoundsMagnitudes - m;
}

double BoundsBinLower(int bin) {
  if (bin == kBoundsMagnitudes) return -std::ldexp(1.0, kBoundsMinExponent - 1);
  const int m = std::abs(bin - kBoundsMagnitudes);
  const int e = m + kBoundsMinExponent - 1;
  return bin > kBoundsMagnitudes ? std::ldexp(1.0, e - 1) : -std::ldexp(1.0, e);
}

double BoundsBinUpper(int bin) {
  if (bin == kBoundsMagnitudes) return std::ldexp(1.0, kBoundsMinExponent - 1);
  const int m = std::abs(bin - kBoundsMagnitudes);
  const int e = m + kBoundsMinExponent - 1;
  return bin > kBoundsMagnitudes ? std::ldexp(1.0, e) : -std::ldexp(1.0, e - 1);
}

BoundsMechanism MakeBoundsMechanism(double epsilon, std::int64_t features) {
  const double unit = std::ldexp(1.0, -kBoundsEpsilonBits);
  if (!std::isfinite(epsilon) || !(epsilon >= unit) || epsilon > 1e6) {
    throw InputError("data.bounds_epsilon must be in [2^-20, 1e6], got " + std::to_string(epsilon));
  }
  if (features < 1) throw InputError("dp-bounds: the data have no feature");
  BoundsMechanism m;
  m.features = features;
  m.num_s = static_cast<std::uint64_t>(std::floor(std::ldexp(epsilon, kBoundsEpsilonBits)));
  m.epsilon = std::ldexp(static_cast<double>(m.num_s), -kBoundsEpsilonBits);
  // P(z) ~ exp(-|z| s/t) with s/t = eps' / (2d): s = eps' 2^20, t = 2d 2^20.
  m.t = static_cast<std::uint64_t>(2 * features) << kBoundsEpsilonBits;
  return m;
}

std::vector<std::int64_t> BoundsHistogram(const Dataset& rows) {
  const std::int64_t d = rows.cols();
  std::vector<std::int64_t> hist(static_cast<std::size_t>(d * kBoundsBins), 0);
  if (const auto* dense = std::get_if<DenseRows>(&rows.x)) {
    for (Eigen::Index r = 0; r < dense->rows(); ++r) {
      CountRow(hist.data(), dense->row(r).transpose());
    }
    return hist;
  }
  // Sparse: the stored entries are binned; every row's other features are 0 (the zero bin).
  const auto& sparse = std::get<SparseRows>(rows.x);
  std::vector<std::int64_t> stored(static_cast<std::size_t>(d), 0);
  for (std::int64_t r = 0; r < sparse.outerSize(); ++r) {
    for (SparseRows::InnerIterator it(sparse, r); it; ++it) {
      ++hist[static_cast<std::size_t>(it.col() * kBoundsBins + BoundsBin(it.value()))];
      ++stored[static_cast<std::size_t>(it.col())];
    }
  }
  for (std::int64_t j = 0; j < d; ++j) {
    hist[static_cast<std::size_t>(j * kBoundsBins + kBoundsMagnitudes)] +=
        sparse.rows() - stored[static_cast<std::size_t>(j)];
  }
  return hist;
}

std::vector<double> ReleaseBoundsHistogram(const Dataset& rows, const BoundsMechanism& m,
                                           const std::optional<std::uint64_t>& noise_seed,
                                           std::uint64_t node) {
  if (rows.cols() != m.features) {
    throw InputError("dp-bounds: the node's rows have " + std::to_string(rows.cols()) +
                     " features, the mechanism " + std::to_string(m.features));
  }
  const std::vector<std::int64_t> hist = BoundsHistogram(rows);
  const NoiseKey key = NoiseKey::Make(noise_seed, node);
  KeyedStream stream(key, 0, Purpose::kBoundsNoise);
  std::vector<double> out(hist.size());
  for (std::size_t k = 0; k < hist.size(); ++k) {
    out[k] = static_cast<double>(hist[k] + SampleDiscreteLaplace(stream, m.num_s, m.t));
  }
  return out;
}

double BoundsThreshold(const BoundsMechanism& m, int nodes) {
  // One node's noise: P(z) = (1 - p)/(1 + p) p^|z|, p = exp(-s/t), with moment generating
  // function M(l) = (1 - p)^2 / ((1 - p e^l)(1 - p e^-l)) for 0 < l < -log p. Chernoff:
  // P(S > tau) <= exp(-l tau) M(l)^N <= 2^-30 for tau >= (N log M(l) + 30 log 2) / l; the
  // smallest such tau over a grid of l (any l gives a valid bound), rounded up.
  const double a = static_cast<double>(m.num_s) / static_cast<double>(m.t);  // -log p
  const double log_q = -30.0 * math::Log(2.0);
  double best = std::numeric_limits<double>::infinity();
  constexpr int kSteps = 512;
  for (int k = 1; k < kSteps; ++k) {
    const double l = a * k / kSteps;
    // log M(l) = 2 log(1 - p) - log(1 - p e^l) - log(1 - p e^-l), with 1 - p e^x = -expm1(x - a).
    const double log_m = 2.0 * math::Log(-math::Expm1(-a)) - math::Log(-math::Expm1(l - a)) -
                         math::Log(-math::Expm1(-l - a));
    best = std::min(best, (nodes * log_m - log_q) / l);
  }
  return std::ceil(best);
}

DpBoundsEstimate BoundsFromReleases(const std::vector<double>& summed, const BoundsMechanism& m,
                                    int nodes, const std::vector<double>& fallback) {
  DpBoundsEstimate e;
  e.threshold = BoundsThreshold(m, nodes);
  const double lo_default = fallback.size() == 2 ? fallback[0] : -1.0;
  const double hi_default = fallback.size() == 2 ? fallback[1] : 1.0;
  for (std::int64_t j = 0; j < m.features; ++j) {
    const double* counts = summed.data() + j * kBoundsBins;
    int first = -1, last = -1;
    for (int b = 0; b < kBoundsBins; ++b) {
      if (counts[b] > e.threshold) {
        if (first < 0) first = b;
        last = b;
      }
    }
    if (first < 0) {
      ++e.fallback_features;
      e.bounds.lo.push_back(lo_default);
      e.bounds.hi.push_back(hi_default);
      continue;
    }
    e.bounds.lo.push_back(BoundsBinLower(first));
    e.bounds.hi.push_back(BoundsBinUpper(last));
  }
  return e;
}

}  // namespace dpadmm
