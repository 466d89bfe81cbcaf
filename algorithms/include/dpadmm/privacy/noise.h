// The noise distributions of the papers, drawn from a counter-based Stream so that every draw is
// reproducible from (seed, node, round, purpose) whatever the thread schedule.
#pragma once

#include <Eigen/Dense>

#include "dpadmm/core/random.h"

namespace dpadmm {

// l2-Laplace-type noise in R^d with density proportional to exp(-a ||e||_2), a > 0
// (004 DVP, 003 Algorithm 3, PVP): the norm is Gamma(shape d, scale 1/a), the direction is
// uniform on the unit sphere (a normalised standard normal vector). out.size() = d >= 1.
void DrawL2Laplace(Stream& stream, double a, Eigen::Ref<Eigen::VectorXd> out);

// Isotropic Gaussian N(0, sigma^2 I), sigma >= 0.
void DrawGaussian(Stream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out);

// Uniform direction on the unit sphere in R^d.
void DrawUnitDirection(Stream& stream, Eigen::Ref<Eigen::VectorXd> out);

}  // namespace dpadmm
