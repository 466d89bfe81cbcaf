// SPDX-License-Identifier: Apache-2.0
// Primal variable perturbation (Zhang and Zhu, IEEE TIFS 2017; papers/NOTES.md): the exact
// ADMM primal update (004 eqs. (9)-(10)), released with output noise; the node continues from
// the released value, so every later round depends on its data only through releases.
//   l2-Laplace (the paper's): eps with density proportional to exp(-zeta ||eps||),
//     zeta = alpha_i(t) / sensitivity, alpha_i(t)-DP per release.
//   Gaussian (noise_multiplier > 0): the exact discrete Gaussian N(0, sigma_i^2 I) on a
//     lattice, sigma_i = noise_multiplier x sensitivity, each release a Gaussian mechanism with
//     L2 sensitivity Delta_i + sqrt(d) step (the model rounded to the lattice), composed
//     exactly by the accountant (algorithms/privacy/README.md, "PVP with Gaussian noise").
// Sensitivity of the update: Delta_i = 2 (C/B_i) / (rho_i + 2 eta V_i) (PvpSensitivity).
#pragma once

#include "consensus/admm_node.h"

namespace dpadmm {

class PvpNode : public AdmmNode {
 public:
  using AdmmNode::AdmmNode;
  double Alpha(std::int64_t round) const override {
    return Gaussian() ? 0.0 : GeometricAlpha(round);
  }
  double PrivacyLoss(std::int64_t round) const override { return Alpha(round); }
  std::optional<MechanismRelease> Mechanism(std::int64_t round) const override;
  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 protected:
  // Output perturbation of the exact update: f_i(r) += eps through the release.
  void AfterPrimal(std::int64_t round, double eta) override;
  // Gaussian: the solve starts from the node's last exact update (before its lattice rounding
  // and noise) instead of the release; see pvp_node.cpp.
  void PerturbLocalProblem(std::int64_t round, double eta, double& a) override;

 private:
  bool Gaussian() const { return params_.noise_multiplier > 0.0; }
  // sigma_i of the Gaussian mechanism (round-independent: eta is constant).
  double Sigma() const;
  // Gaussian: the last exact update f_i(r), the next solve's starting point (empty before the
  // first private round). Never sent; saved in checkpoints.
  Eigen::VectorXd exact_;
};

}  // namespace dpadmm
