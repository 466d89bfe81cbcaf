// SPDX-License-Identifier: Apache-2.0
#include "consensus/pvp_node.h"

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

void PvpNode::AfterPrimal(std::int64_t round, double eta) {
  const double alpha = Alpha(round);
  if (alpha <= 0.0) return;
  // Release f + eps with density exp(-zeta ||eps||), zeta = alpha / sensitivity of the exact
  // update; the node continues from the released value.
  const double zeta = PvpNoiseParameter(alpha, params_.C, rows_, params_.rho_node, eta, degree_);
  release_.DrawL2Laplace(zeta, noise_);
  f_ += noise_;
  noise_parameter_ = zeta;
  mean_loss_ = kNaN;  // the loss at the released point is evaluated outside the node
}

}  // namespace dpadmm
