// SPDX-License-Identifier: Apache-2.0
// The per-sample losses as inline kernels for the library's hot loops (internal header). Loss's
// public member functions are defined from these, so each formula exists once.
#pragma once

#include <cmath>

#include "core/portable_math_impl.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm::detail {

inline double LossValue(const Loss& loss, double z) {
  if (loss.kind == LossKind::kLogistic) {
    // log(1 + e^-z) without overflow for either sign of z.
    return z > 0 ? math::impl::Log1p(math::impl::Exp(-z))
                 : -z + math::impl::Log1p(math::impl::Exp(z));
  }
  const double h = loss.huber_h;
  if (z > 1.0 + h) return 0.0;
  if (z < 1.0 - h) return 1.0 - z;
  const double u = 1.0 + h - z;
  return u * u / (4.0 * h);
}

inline double LossD1(const Loss& loss, double z) {
  if (loss.kind == LossKind::kLogistic) {
    // -1 / (1 + e^z)
    return z > 0 ? -math::impl::Exp(-z) / (1.0 + math::impl::Exp(-z))
                 : -1.0 / (1.0 + math::impl::Exp(z));
  }
  const double h = loss.huber_h;
  if (z > 1.0 + h) return 0.0;
  if (z < 1.0 - h) return -1.0;
  return -(1.0 + h - z) / (2.0 * h);
}

inline double LossD2(const Loss& loss, double z) {
  if (loss.kind == LossKind::kLogistic) {
    const double e = math::impl::Exp(-std::abs(z));
    return e / ((1.0 + e) * (1.0 + e));
  }
  return std::abs(z - 1.0) <= loss.huber_h ? 0.5 / loss.huber_h : 0.0;
}

}  // namespace dpadmm::detail
