// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/solver/loss.h"

#include "solver/loss_kernels.h"

namespace dpadmm {

double Loss::Value(double z) const { return detail::LossValue(*this, z); }
double Loss::D1(double z) const { return detail::LossD1(*this, z); }
double Loss::D2(double z) const { return detail::LossD2(*this, z); }

}  // namespace dpadmm
