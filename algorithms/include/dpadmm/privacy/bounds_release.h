// SPDX-License-Identifier: Apache-2.0
// The dp-bounds scaling's release (algorithms/privacy/README.md, "DP feature bounds"): a node
// without public feature bounds spends `epsilon` of its budget on a noisy histogram of its own
// rows over a public signed log2 grid per feature; the nodes' releases are summed
// (post-processing) and every feature's bounds are read off the sum, one agreed vector that
// every node then maps its rows with (ScaleByPublicBounds) before clipping.
//
// Mechanism: every record adds 1 to exactly one bin of each feature's histogram, so replacing one
// record moves at most one count per feature from one bin to another: L1 sensitivity 2 d. Each
// count gets independent discrete Laplace noise P(z) ~ exp(-|z| s / t) (the exact sampler of
// privacy/samplers.h) with s / t = eps' / (2 d), eps' = epsilon rounded DOWN to a multiple of
// 2^-20: the release is eps'-DP (pure), eps' <= epsilon.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dpadmm/data/dataset.h"
#include "dpadmm/data/preprocessing.h"

namespace dpadmm {

// The public grid of one feature: magnitudes 2^(e-1) <= |x| < 2^e for e in
// [kBoundsMinExponent, kBoundsMaxExponent] on each side of 0 (the top bins also take larger
// magnitudes), and one bin for |x| < 2^(kBoundsMinExponent - 1), zero included.
constexpr int kBoundsMinExponent = -20;
constexpr int kBoundsMaxExponent = 40;
constexpr int kBoundsMagnitudes = kBoundsMaxExponent - kBoundsMinExponent + 1;
constexpr int kBoundsBins = 2 * kBoundsMagnitudes + 1;  // bin kBoundsMagnitudes holds 0

// The bin of a finite value, in [0, kBoundsBins) (increasing with x), and its edges
// [BoundsBinLower(b), BoundsBinUpper(b)) (the top bins' upper edge is 2^kBoundsMaxExponent).
int BoundsBin(double x);
double BoundsBinLower(int bin);
double BoundsBinUpper(int bin);

struct BoundsMechanism {
  std::int64_t features = 0;
  double epsilon = 0.0;     // accounted: the requested epsilon rounded down to 2^-20
  std::uint64_t num_s = 0;  // the discrete Laplace's s / t = epsilon / (2 d)
  std::uint64_t t = 0;
};
// Throws InputError unless epsilon >= 2^-20 is finite and features >= 1.
BoundsMechanism MakeBoundsMechanism(double epsilon, std::int64_t features);

// The exact histogram of `rows` (features x kBoundsBins, feature-major): a node's private data.
std::vector<std::int64_t> BoundsHistogram(const Dataset& rows);

// What node `node` releases: its histogram plus discrete Laplace noise drawn from its keyed
// stream (NoiseKey::Make(noise_seed, node), purpose kBoundsNoise), as doubles (exact integers).
std::vector<double> ReleaseBoundsHistogram(const Dataset& rows, const BoundsMechanism& m,
                                           const std::optional<std::uint64_t>& noise_seed,
                                           std::uint64_t node);

// The count above which a bin of the sum of `nodes` releases is taken as occupied: the smallest
// integer tau with P(sum of `nodes` noises > tau) <= 2^-30 by the Chernoff bound on the discrete
// Laplace's moment generating function (an empty bin passes with probability <= 2^-30).
double BoundsThreshold(const BoundsMechanism& m, int nodes);

struct DpBoundsEstimate {
  FeatureBounds bounds;
  std::int64_t fallback_features = 0;  // features with no occupied bin (given `fallback`)
  double threshold = 0.0;
};
// Post-processing of the summed releases (`summed`, features x kBoundsBins): feature j's bounds
// are the lower edge of its lowest and the upper edge of its highest bin whose count exceeds
// BoundsThreshold; a feature with none takes `fallback` ([lo, hi], or [-1, 1] when empty).
DpBoundsEstimate BoundsFromReleases(const std::vector<double>& summed, const BoundsMechanism& m,
                                    int nodes, const std::vector<double>& fallback);

}  // namespace dpadmm
