// Per-sample margin losses L(z), z = y x^T f. Both satisfy the papers' assumptions
// |L'| <= 1 and 0 <= L'' <= c1 (Assumption 1 of 004, Assumption 4 of 003).
#pragma once

#include <cmath>
#include <string>

#include "dpadmm/core/portable_math.h"

namespace dpadmm {

enum class LossKind {
  kLogistic,     // L(z) = log(1 + exp(-z)),              c1 = 1/4
  kSmoothHinge,  // Huber hinge with half-width h (Chaudhuri et al. 2011), c1 = 1/(2h)
};

struct Loss {
  LossKind kind = LossKind::kLogistic;
  double huber_h = 0.5;  // smooth hinge only; > 0

  // Bound c1 on L'' used by the privacy analyses.
  double CurvatureBound() const { return kind == LossKind::kLogistic ? 0.25 : 0.5 / huber_h; }
  std::string Name() const { return kind == LossKind::kLogistic ? "logistic" : "smooth_hinge"; }

  double Value(double z) const {
    if (kind == LossKind::kLogistic) {
      // log(1 + e^-z) without overflow for either sign of z.
      return z > 0 ? math::Log1p(math::Exp(-z)) : -z + math::Log1p(math::Exp(z));
    }
    if (z > 1.0 + huber_h) return 0.0;
    if (z < 1.0 - huber_h) return 1.0 - z;
    const double u = 1.0 + huber_h - z;
    return u * u / (4.0 * huber_h);
  }
  // First and second derivative with respect to z.
  double D1(double z) const {
    if (kind == LossKind::kLogistic) {
      // -1 / (1 + e^z)
      return z > 0 ? -math::Exp(-z) / (1.0 + math::Exp(-z)) : -1.0 / (1.0 + math::Exp(z));
    }
    if (z > 1.0 + huber_h) return 0.0;
    if (z < 1.0 - huber_h) return -1.0;
    return -(1.0 + huber_h - z) / (2.0 * huber_h);
  }
  double D2(double z) const {
    if (kind == LossKind::kLogistic) {
      const double e = math::Exp(-std::abs(z));
      return e / ((1.0 + e) * (1.0 + e));
    }
    return std::abs(z - 1.0) <= huber_h ? 0.5 / huber_h : 0.0;
  }
};

// Parses "logistic" | "smooth_hinge"; throws InputError naming `field` otherwise.
LossKind ParseLossKind(const std::string& name, const std::string& field);

}  // namespace dpadmm
