// SPDX-License-Identifier: Apache-2.0
// The continuous noise distributions of the papers, in double precision, from either source:
// the keyed ChaCha20 stream of a node's secret key (noise_key.h; every private release) or a
// Philox Stream (tests and non-private uses). The release rounds what leaves a node to the grid
// of samplers.h (privacy/README.md: snapping).
#pragma once

#include <Eigen/Dense>

#include "dpadmm/core/random.h"
#include "dpadmm/privacy/noise_key.h"

namespace dpadmm {

// l2-Laplace-type noise in R^d with density proportional to exp(-a ||e||_2), a > 0
// (004 DVP, 003 Algorithm 3, PVP): the norm is Gamma(shape d, scale 1/a), the direction is
// uniform on the unit sphere (a normalised standard normal vector). out.size() = d >= 1.
void DrawL2Laplace(Stream& stream, double a, Eigen::Ref<Eigen::VectorXd> out);

// Isotropic Gaussian N(0, sigma^2 I), sigma >= 0.
void DrawGaussian(Stream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out);

// Uniform direction on the unit sphere in R^d.
void DrawUnitDirection(Stream& stream, Eigen::Ref<Eigen::VectorXd> out);

// Correlated Gaussian sigma * factor * u with u ~ N(0, I_k) (k = factor.cols(), drawn in
// coordinate order), so Cov = sigma^2 factor factor^T; out.size() = factor.rows(), sigma >= 0.
// 001 eq. (16) uses factor = L^{-T} with D^T D = L L^T (see sharing's GramNoise).
void DrawCorrelatedGaussian(Stream& stream, const Eigen::MatrixXd& factor, double sigma,
                            Eigen::Ref<Eigen::VectorXd> out);

// A point uniformly distributed in the l2 ball of radius R in R^d (out.size() = d >= 1, R >= 0):
// uniform direction times R U^(1/d). Draw order: the radius, then the direction. 000 allows any
// distribution bounded by R (eq. (14)); this is the choice made here.
void DrawUniformBall(Stream& stream, double R, Eigen::Ref<Eigen::VectorXd> out);

// The same samplers on the keyed noise stream (same transforms, same draw order).
void DrawL2Laplace(KeyedStream& stream, double a, Eigen::Ref<Eigen::VectorXd> out);
void DrawGaussian(KeyedStream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out);
void DrawUnitDirection(KeyedStream& stream, Eigen::Ref<Eigen::VectorXd> out);
void DrawCorrelatedGaussian(KeyedStream& stream, const Eigen::MatrixXd& factor, double sigma,
                            Eigen::Ref<Eigen::VectorXd> out);
void DrawUniformBall(KeyedStream& stream, double R, Eigen::Ref<Eigen::VectorXd> out);

}  // namespace dpadmm
