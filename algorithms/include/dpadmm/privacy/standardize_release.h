// SPDX-License-Identifier: Apache-2.0
// The dp-standardize scaling's release (algorithms/privacy/README.md, "DP standardization"): a
// node spends `epsilon` of its budget on noisy per-feature sums of its own rows, clipped to
// public bounds [lo_j, hi_j] (given, or agreed under dp-bounds first); the nodes' releases are
// summed (post-processing) into one shared mean and standard deviation per feature, which every
// node then standardizes its rows with (data/standardization.h).
//
// Mechanism: each value is clipped to its bounds and normalised to v = (clip(x) - c) / w in
// [-1, 1] (c = (lo + hi) / 2, w = (hi - lo) / 2), then put on the integer grid 2^-K (K =
// kStandardizeGridBits): q = round(v 2^K) in [-2^K, 2^K] and r = round(v^2 2^(K+1)) in
// [0, 2^(K+1)], both functions of the record alone. A node's 2d sums (sum q, sum r per feature)
// change by at most 2^(K+1) each when one record is replaced: L1 sensitivity 2d 2^(K+1). Each
// sum gets independent discrete Laplace noise P(z) ~ exp(-|z| s / t), s / t = eps' / (2d
// 2^(K+1)), eps' = epsilon rounded DOWN to a multiple of 2^-20: the release is eps'-DP (pure).
// The row counts are public (replace-one neighbours keep them).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dpadmm/data/dataset.h"
#include "dpadmm/data/preprocessing.h"
#include "dpadmm/data/standardization.h"

namespace dpadmm {

constexpr int kStandardizeGridBits = 16;  // K: the sums' grid is 2^-16 of a half range

struct StandardizeMechanism {
  std::int64_t features = 0;
  double epsilon = 0.0;     // accounted: the requested epsilon rounded down to 2^-20
  std::uint64_t num_s = 0;  // the discrete Laplace's s / t = epsilon / (2 d 2^(K+1))
  std::uint64_t t = 0;
};
// Throws InputError unless epsilon in [2^-20, 1e6] is finite and 1 <= features <= 2^24 (t
// stays below 2^64).
StandardizeMechanism MakeStandardizeMechanism(double epsilon, std::int64_t features);

// The noise's scale t / s in grid units (each sum's noise has variance about 2 (t / s)^2).
double StandardizeNoiseScale(const StandardizeMechanism& m);

// The exact sums of `rows` (dense; 2d integers: sum q_j for every feature, then sum r_j): a
// node's private data. Throws InputError for sparse rows, bounds that do not fit the columns,
// or a value that is not finite.
std::vector<std::int64_t> StandardizeSums(const Dataset& rows, const FeatureBounds& bounds);

// What node `node` releases: its sums plus discrete Laplace noise drawn from its keyed stream
// (NoiseKey::Make(noise_seed, node), purpose kStandardizeNoise), as doubles (exact integers).
std::vector<double> ReleaseStandardizeSums(const Dataset& rows, const FeatureBounds& bounds,
                                           const StandardizeMechanism& m,
                                           const std::optional<std::uint64_t>& noise_seed,
                                           std::uint64_t node);

struct DpStandardizeEstimate {
  FeatureStandardization standardization;
  // The floor of a normalised variance (the noise's standard deviation in the variance
  // estimate), and how many features it raised.
  double variance_floor = 0.0;
  std::int64_t floored_features = 0;
};
// Post-processing of the summed releases of `nodes` nodes holding `rows` rows in all: per
// feature, mean_v = clamp(sum q / (2^K rows), -1, 1), E[v^2] = clamp(sum r / (2^(K+1) rows),
// 0, 1), var_v = max(E[v^2] - mean_v^2, variance_floor) with variance_floor = min(1,
// sqrt(2 nodes) (t / s) / (2^(K+1) rows)); mean = c + w mean_v, scale = w sqrt(var_v).
DpStandardizeEstimate StandardizationFromReleases(const std::vector<double>& summed,
                                                  const FeatureBounds& bounds,
                                                  const StandardizeMechanism& m, std::int64_t rows,
                                                  int nodes);

}  // namespace dpadmm
