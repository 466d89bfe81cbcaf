// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/standardize_release.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dpadmm/core/error.h"
#include "dpadmm/privacy/noise_key.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

constexpr int kStandardizeEpsilonBits = 20;  // epsilon is quantised to multiples of 2^-20
constexpr std::int64_t kMaxFeatures = std::int64_t{1} << 24;
constexpr std::int64_t kUnit = std::int64_t{1} << kStandardizeGridBits;  // 2^K

}  // namespace

StandardizeMechanism MakeStandardizeMechanism(double epsilon, std::int64_t features) {
  const double unit = std::ldexp(1.0, -kStandardizeEpsilonBits);
  if (!std::isfinite(epsilon) || !(epsilon >= unit) || epsilon > 1e6) {
    throw InputError("data.standardize_epsilon must be in [2^-20, 1e6], got " +
                     std::to_string(epsilon));
  }
  if (features < 1 || features > kMaxFeatures) {
    throw InputError("dp-standardize: " + std::to_string(features) +
                     " features, outside [1, 2^24]");
  }
  StandardizeMechanism m;
  m.features = features;
  m.num_s = static_cast<std::uint64_t>(std::floor(std::ldexp(epsilon, kStandardizeEpsilonBits)));
  m.epsilon = std::ldexp(static_cast<double>(m.num_s), -kStandardizeEpsilonBits);
  // s/t = eps' / (2 d 2^(K+1)): s = eps' 2^20, t = 2 d 2^(K+1) 2^20.
  m.t = static_cast<std::uint64_t>(2 * features)
        << (kStandardizeGridBits + 1 + kStandardizeEpsilonBits);
  return m;
}

double StandardizeNoiseScale(const StandardizeMechanism& m) {
  return static_cast<double>(m.t) / static_cast<double>(m.num_s);
}

std::vector<std::int64_t> StandardizeSums(const Dataset& rows, const FeatureBounds& bounds) {
  const auto* dense = std::get_if<DenseRows>(&rows.x);
  if (dense == nullptr) {
    throw InputError(
        "data.scaling 'dp-standardize' needs dense rows: centring would turn every stored zero "
        "of the sparse rows into a value (use dp-bounds or public-bounds for sparse data)");
  }
  const auto d = static_cast<std::size_t>(dense->cols());
  if (bounds.lo.size() != d || bounds.hi.size() != d) {
    throw InputError("dp-standardize: bounds for " + std::to_string(bounds.lo.size()) +
                     " features, the rows have " + std::to_string(d));
  }
  std::vector<std::int64_t> sums(2 * d, 0);
  for (Eigen::Index r = 0; r < dense->rows(); ++r) {
    for (std::size_t j = 0; j < d; ++j) {
      const double x = (*dense)(r, static_cast<Eigen::Index>(j));
      if (!std::isfinite(x)) {
        throw InputError("dp-standardize: row " + std::to_string(r) + " feature " +
                         std::to_string(j) + " is not finite");
      }
      const double lo = bounds.lo[j], hi = bounds.hi[j];
      const double half = 0.5 * (hi - lo);
      const double v = (std::clamp(x, lo, hi) - 0.5 * (lo + hi)) / half;
      // Rounding may leave |v| a few ulps above 1: the grid values are clamped to their range.
      const std::int64_t q = std::clamp<std::int64_t>(
          std::llround(std::ldexp(v, kStandardizeGridBits)), -kUnit, kUnit);
      const std::int64_t sq = std::clamp<std::int64_t>(
          std::llround(std::ldexp(v * v, kStandardizeGridBits + 1)), 0, 2 * kUnit);
      sums[j] += q;
      sums[d + j] += sq;
    }
  }
  return sums;
}

std::vector<double> ReleaseStandardizeSums(const Dataset& rows, const FeatureBounds& bounds,
                                           const StandardizeMechanism& m,
                                           const std::optional<std::uint64_t>& noise_seed,
                                           std::uint64_t node) {
  if (rows.cols() != m.features) {
    throw InputError("dp-standardize: the node's rows have " + std::to_string(rows.cols()) +
                     " features, the mechanism " + std::to_string(m.features));
  }
  const std::vector<std::int64_t> sums = StandardizeSums(rows, bounds);
  const NoiseKey key = NoiseKey::Make(noise_seed, node);
  KeyedStream stream(key, 0, Purpose::kStandardizeNoise);
  std::vector<double> out(sums.size());
  for (std::size_t k = 0; k < sums.size(); ++k) {
    out[k] = static_cast<double>(sums[k] + SampleDiscreteLaplace(stream, m.num_s, m.t));
  }
  return out;
}

DpStandardizeEstimate StandardizationFromReleases(const std::vector<double>& summed,
                                                  const FeatureBounds& bounds,
                                                  const StandardizeMechanism& m, std::int64_t rows,
                                                  int nodes) {
  const auto d = static_cast<std::size_t>(m.features);
  if (summed.size() != 2 * d || bounds.lo.size() != d || bounds.hi.size() != d) {
    throw InputError("dp-standardize: " + std::to_string(summed.size()) + " summed values and " +
                     std::to_string(bounds.lo.size()) + " bounds for " + std::to_string(d) +
                     " features");
  }
  if (rows < 1 || nodes < 1) throw InputError("dp-standardize: no rows");
  const auto n = static_cast<double>(rows);
  const double unit = std::ldexp(1.0, kStandardizeGridBits);
  DpStandardizeEstimate e;
  // One node's noise on a sum of r has standard deviation about sqrt(2) t/s grid units, i.e.
  // sqrt(2) t/s / 2^(K+1) in v^2; the sum of `nodes` releases sqrt(nodes) times that.
  e.variance_floor =
      std::min(1.0, std::sqrt(2.0 * nodes) * StandardizeNoiseScale(m) / (2.0 * unit * n));
  e.standardization.mean.resize(d);
  e.standardization.scale.resize(d);
  for (std::size_t j = 0; j < d; ++j) {
    const double lo = bounds.lo[j], hi = bounds.hi[j];
    const double half = 0.5 * (hi - lo);
    const double mean_v = std::clamp(summed[j] / (unit * n), -1.0, 1.0);
    const double second = std::clamp(summed[d + j] / (2.0 * unit * n), 0.0, 1.0);
    double var_v = second - mean_v * mean_v;
    if (!(var_v >= e.variance_floor)) {
      var_v = e.variance_floor;
      ++e.floored_features;
    }
    e.standardization.mean[j] = 0.5 * (lo + hi) + half * mean_v;
    e.standardization.scale[j] = half * std::sqrt(var_v);
  }
  return e;
}

}  // namespace dpadmm
