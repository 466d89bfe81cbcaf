// SPDX-License-Identifier: Apache-2.0
// Exact, integer-only samplers for the per-coordinate mechanisms, and the grid every private
// release is rounded to (privacy/README.md derives the choices and the calibration).
//
// The distributions are exact: only fair bits of the keyed ChaCha20 stream and integer
// comparisons decide an outcome (Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy", NeurIPS 2020, Algorithms 1-3), so the released values follow the law
// the accounting assumes, with no floating-point artefacts (Mironov, CCS 2012).
#pragma once

#include <cstdint>

#include <Eigen/Dense>

#include "dpadmm/privacy/noise_key.h"

namespace dpadmm {

// Bernoulli(num / den), 0 <= num <= den, den > 0.
bool SampleBernoulli(KeyedStream& s, Uint128 num, Uint128 den);

// Bernoulli(exp(-num / den)), num >= 0, 0 < den <= 2^104 (CKS Algorithm 1 for gamma <= 1,
// and floor(gamma) Bernoulli(exp(-1)) trials then the fractional part for gamma > 1).
bool SampleBernoulliExp(KeyedStream& s, Uint128 num, Uint128 den);

// Discrete Laplace on Z: P(x) proportional to exp(-|x| s / t), s, t >= 1 (CKS Algorithm 2).
std::int64_t SampleDiscreteLaplace(KeyedStream& s, std::uint64_t num_s, std::uint64_t t);

// Discrete Gaussian on Z: P(x) proportional to exp(-x^2 / (2 sigma2)), integer sigma2 in
// [1, 2^51] (CKS Algorithm 3 with sigma = sqrt(sigma2), t = floor(sigma) + 1).
std::int64_t SampleDiscreteGaussian(KeyedStream& s, std::uint64_t sigma2);

// Randomized response's flip: true with probability 1 / (1 + e^eps_q), where eps_q is eps
// rounded DOWN to a multiple of 2^-32 (and capped at 2^20), so the flip probability used is
// never below the one the accounting assumes. eps >= 0; eps = 0 means "not randomized"
// (000's convention) and never flips.
bool SampleRandomizedResponseFlip(KeyedStream& s, double eps);

// The release grid: every private release is a multiple of Lambda = 2^-kGridExponent
// (2^-16 ~ 1.5e-5: below the resolution at which the models' coefficients matter, and coarse
// enough that double-precision error of the continuous samplers, ~2^-49 |x|, rarely moves a
// value across a cell boundary: the total-variation term of privacy/README.md). Per-coordinate
// discrete noises may use a coarser power-of-two step (GaussianGridStep), a multiple of Lambda.
constexpr int kGridExponent = 16;
constexpr double kGridStep = 0x1.0p-16;
// |values| are clamped to this (post-processing) so grid membership holds: 2^31, where the
// spacing of doubles is 2^-21 < Lambda.
constexpr double kGridLimit = 0x1.0p31;

// x rounded to the nearest multiple of `step` (a power of two >= Lambda), ties to even,
// clamped to [-kGridLimit, kGridLimit]; NaN stays NaN.
double RoundToGrid(double x, double step = kGridStep);
// True when x is a multiple of `step` within the clamp (tests).
// The grid of the snapped continuous mechanisms (l2-Laplace noise drawn in double precision):
// multiples of kGridStep below kSnapFineLimit = 32 in magnitude, and 21 significant bits above
// (the step max(kGridStep, 2^(floor(log2 |x|) - 20))), so that a cell boundary is never closer
// than 2^-21 |x| to the next: a relative floating-point error then moves a value across one
// with probability at most the same 2^-27 per coordinate at every magnitude
// (algorithms/privacy/README.md, "The floating-point term"). Clamped to +-kGridLimit; every
// result is a multiple of kGridStep (OnGrid).
inline constexpr double kSnapFineLimit = 32.0;
double RoundToSnapGrid(double x);
bool OnGrid(double x, double step = kGridStep);
// The L2 sensitivity a grid rounding adds to a d-vector: each of two neighbouring inputs moves
// by at most sqrt(d) step / 2, so Delta' = Delta + sqrt(d) step.
double GridSensitivityL2(Eigen::Index d, double step = kGridStep);

// The lattice step of a discrete Gaussian with standard deviation sigma > 0: Lambda for
// sigma <= 2^9, else the power of two 2^(ceil(log2 sigma) - 25), so (sigma / step)^2 <= 2^50
// stays in the exact sampler's range.
double GaussianGridStep(double sigma);

// out[k] = step * Z_k, Z_k iid discrete Gaussian with sigma2 = ceil((sigma / step)^2) (rounded
// UP: the variance used is never below the one asked for); step = GaussianGridStep(sigma).
// sigma = 0 gives zeros. Returns the step.
double DrawDiscreteGaussianGrid(KeyedStream& s, double sigma, Eigen::Ref<Eigen::VectorXd> out);

}  // namespace dpadmm
