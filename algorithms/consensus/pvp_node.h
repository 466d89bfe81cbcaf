// SPDX-License-Identifier: Apache-2.0
// Primal variable perturbation (Zhang and Zhu, IEEE TIFS 2017; papers/NOTES.md): the exact
// ADMM primal update (004 eqs. (9)-(10)), released as f + eps with density proportional to
// exp(-zeta ||eps||), zeta = alpha_i(t) / sensitivity; the node continues from the released
// value. alpha_i(t)-DP per release.
#pragma once

#include "consensus/admm_node.h"

namespace dpadmm {

class PvpNode : public AdmmNode {
 public:
  using AdmmNode::AdmmNode;
  double Alpha(std::int64_t round) const override { return GeometricAlpha(round); }
  double PrivacyLoss(std::int64_t round) const override { return Alpha(round); }

 protected:
  // Output perturbation of the exact update: f_i(r) += eps through the release.
  void AfterPrimal(std::int64_t round, double eta) override;
};

}  // namespace dpadmm
