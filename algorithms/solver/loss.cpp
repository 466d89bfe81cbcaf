// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/solver/loss.h"

#include "dpadmm/core/error.h"
#include "solver/loss_kernels.h"

namespace dpadmm {

double Loss::Value(double z) const { return detail::LossValue(*this, z); }
double Loss::D1(double z) const { return detail::LossD1(*this, z); }
double Loss::D2(double z) const { return detail::LossD2(*this, z); }

LossKind ParseLossKind(const std::string& name, const std::string& field) {
  if (name == "logistic") return LossKind::kLogistic;
  if (name == "smooth_hinge") return LossKind::kSmoothHinge;
  throw InputError(field + ": unknown loss '" + name + "' (expected logistic or smooth_hinge)");
}

}  // namespace dpadmm
