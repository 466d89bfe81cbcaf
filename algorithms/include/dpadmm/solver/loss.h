// SPDX-License-Identifier: Apache-2.0
// Per-sample margin losses L(z), z = y x^T f. Both satisfy the papers' assumptions
// |L'| <= 1 and 0 <= L'' <= c1 (Assumption 1 of 004, Assumption 4 of 003).
#pragma once

#include <string>

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

  // The loss and its first and second derivatives with respect to z. Out of line so that the
  // library's floating-point contract (see dpadmm/core/portable_math.h) holds in every build.
  [[nodiscard]] double Value(double z) const;
  [[nodiscard]] double D1(double z) const;
  [[nodiscard]] double D2(double z) const;
};

}  // namespace dpadmm
