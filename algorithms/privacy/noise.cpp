// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/noise.h"

#include <cmath>
#include <sstream>

#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"

namespace dpadmm {
namespace {

[[noreturn]] void Fail(const char* fn, const char* what, double got) {
  std::ostringstream os;
  os << fn << ": " << what << ", got " << got;
  throw InputError(os.str());
}

// Fills `out` with a uniform direction; out.size() >= 1 is checked by the callers.
template <class S>
void FillUnitDirection(S& stream, Eigen::Ref<Eigen::VectorXd> out) {
  // A standard normal vector is rotation invariant, so its direction is uniform on the sphere.
  // The norm is 0 only if every coordinate is exactly 0 (probability about 2^-53 per
  // coordinate); redraw rather than divide by 0.
  double norm = 0.0;
  do {
    for (Eigen::Index k = 0; k < out.size(); ++k) out[k] = stream.Normal();
    norm = out.norm();
  } while (!(norm > 0.0));
  out /= norm;
}

template <class S>
void DrawL2LaplaceImpl(S& stream, double a, Eigen::Ref<Eigen::VectorXd> out) {
  if (!std::isfinite(a) || !(a > 0.0)) Fail("DrawL2Laplace", "a must be finite and > 0", a);
  if (out.size() < 1) {
    Fail("DrawL2Laplace", "out must have size d >= 1", static_cast<double>(out.size()));
  }
  // Density proportional to exp(-a ||e||) in R^d: in polar coordinates the norm r has density
  // proportional to r^(d-1) e^(-a r), i.e. Gamma(shape d, scale 1/a), independent of the
  // uniform direction (papers/NOTES.md; 003 after Algorithm 3; 004 eq. (22)).
  // Draw order: the norm, then the direction.
  const double r = stream.Gamma(static_cast<double>(out.size())) / a;
  FillUnitDirection(stream, out);
  out *= r;
}

template <class S>
void DrawGaussianImpl(S& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  if (!std::isfinite(sigma) || !(sigma >= 0.0)) {
    Fail("DrawGaussian", "sigma must be finite and >= 0", sigma);
  }
  for (Eigen::Index k = 0; k < out.size(); ++k) out[k] = sigma * stream.Normal();
}

template <class S>
void DrawUnitDirectionImpl(S& stream, Eigen::Ref<Eigen::VectorXd> out) {
  if (out.size() < 1) {
    Fail("DrawUnitDirection", "out must have size d >= 1", static_cast<double>(out.size()));
  }
  FillUnitDirection(stream, out);
}

template <class S>
void DrawCorrelatedGaussianImpl(S& stream, const Eigen::MatrixXd& factor, double sigma,
                                Eigen::Ref<Eigen::VectorXd> out) {
  if (!std::isfinite(sigma) || !(sigma >= 0.0)) {
    Fail("DrawCorrelatedGaussian", "sigma must be finite and >= 0", sigma);
  }
  if (out.size() != factor.rows()) {
    Fail("DrawCorrelatedGaussian", "out must have factor.rows() entries",
         static_cast<double>(out.size()));
  }
  Eigen::VectorXd u(factor.cols());
  for (Eigen::Index k = 0; k < u.size(); ++k) u[k] = stream.Normal();
  out.noalias() = sigma * (factor * u);
}

template <class S>
void DrawUniformBallImpl(S& stream, double R, Eigen::Ref<Eigen::VectorXd> out) {
  if (!(R >= 0.0) || !std::isfinite(R)) Fail("DrawUniformBall", "R must be >= 0 and finite", R);
  if (out.size() < 1) {
    Fail("DrawUniformBall", "out must have size d >= 1", static_cast<double>(out.size()));
  }
  // P(||x|| <= r) = (r / R)^d for the uniform distribution on the ball, so ||x|| = R U^(1/d).
  const double radius = R * math::Pow(stream.UniformOpen(), 1.0 / static_cast<double>(out.size()));
  DrawUnitDirectionImpl(stream, out);
  out *= radius;
}

}  // namespace

void DrawL2Laplace(Stream& stream, double a, Eigen::Ref<Eigen::VectorXd> out) {
  DrawL2LaplaceImpl(stream, a, out);
}

void DrawL2Laplace(KeyedStream& stream, double a, Eigen::Ref<Eigen::VectorXd> out) {
  DrawL2LaplaceImpl(stream, a, out);
}

void DrawGaussian(Stream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  DrawGaussianImpl(stream, sigma, out);
}

void DrawGaussian(KeyedStream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out) {
  DrawGaussianImpl(stream, sigma, out);
}

void DrawUnitDirection(Stream& stream, Eigen::Ref<Eigen::VectorXd> out) {
  DrawUnitDirectionImpl(stream, out);
}

void DrawUnitDirection(KeyedStream& stream, Eigen::Ref<Eigen::VectorXd> out) {
  DrawUnitDirectionImpl(stream, out);
}

void DrawCorrelatedGaussian(Stream& stream, const Eigen::MatrixXd& factor, double sigma,
                            Eigen::Ref<Eigen::VectorXd> out) {
  DrawCorrelatedGaussianImpl(stream, factor, sigma, out);
}

void DrawCorrelatedGaussian(KeyedStream& stream, const Eigen::MatrixXd& factor, double sigma,
                            Eigen::Ref<Eigen::VectorXd> out) {
  DrawCorrelatedGaussianImpl(stream, factor, sigma, out);
}

void DrawUniformBall(Stream& stream, double R, Eigen::Ref<Eigen::VectorXd> out) {
  DrawUniformBallImpl(stream, R, out);
}

void DrawUniformBall(KeyedStream& stream, double R, Eigen::Ref<Eigen::VectorXd> out) {
  DrawUniformBallImpl(stream, R, out);
}

}  // namespace dpadmm
