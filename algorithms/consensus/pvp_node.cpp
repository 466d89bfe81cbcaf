// SPDX-License-Identifier: Apache-2.0
#include "consensus/pvp_node.h"

#include "dpadmm/privacy/accounting.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {

double PvpNode::Sigma() const {
  return params_.noise_multiplier *
         PvpSensitivity(params_.C, rows_, params_.rho_node, params_.eta, degree_);
}

std::optional<MechanismRelease> PvpNode::Mechanism(std::int64_t round) const {
  if (!Gaussian()) return AdmmNode::Mechanism(round);
  // DrawGaussian rounds the variance up (sigma is a lower bound of the noise used), and
  // rounding the model to the lattice moves it by at most sqrt(d) step / 2 in either
  // neighbouring run: sqrt(d) step is added to the sensitivity, as for PDML's primal noise.
  const double sigma = Sigma();
  const double sensitivity =
      PvpSensitivity(params_.C, rows_, params_.rho_node, params_.eta, degree_);
  return MechanismRelease{MechanismKind::kGaussian,
                          sensitivity + GridSensitivityL2(dim_, GaussianGridStep(sigma)), sigma,
                          0.0};
}

void PvpNode::PerturbLocalProblem(std::int64_t /*round*/, double /*eta*/, double& /*a*/) {
  // The penalty's centre and the dual have read the release (PenaltyLinearTerm); only the
  // solve's starting point changes. The release is the minimiser of the same problem (made of
  // released values and the node's rows), held to the private tolerance whatever the solve
  // starts from; starting from the previous exact update, where the solver's evaluation is
  // still current, saves a pass over the rows and Newton steps that a start from the noisy
  // release needs (pvp at the epsilon policy on a9a, Adult, twonorm and splice: 12-25% of
  // the run time).
  // The Laplace variant keeps the release as its start (the papers' reproductions keep their
  // bits).
  if (Gaussian() && exact_.size() == f_.size()) f_ = exact_;
}

void PvpNode::AfterPrimal(std::int64_t round, double eta) {
  if (Gaussian()) {
    exact_ = f_;
    // The exact discrete Gaussian on the lattice step Z^d: the model rounded to the lattice
    // plus the lattice noise is exact in doubles, so the release is exactly that mechanism.
    noise_parameter_ = Sigma();
    const double step = release_.DrawGaussian(noise_parameter_, noise_);
    f_ = f_.unaryExpr([step](double v) { return RoundToGrid(v, step); }) + noise_;
    mean_loss_ = kNaN;
    return;
  }
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

void PvpNode::SaveState(StateWriter& out) const {
  AdmmNode::SaveState(out);
  out.Bool(exact_.size() > 0);
  if (exact_.size() > 0) out.Vec(exact_);
}

void PvpNode::LoadState(StateReader& in) {
  AdmmNode::LoadState(in);
  if (in.Bool("pvp has an exact update")) {
    exact_ = in.EVec("pvp exact update", dim_);
  } else {
    exact_.resize(0);
  }
}

}  // namespace dpadmm
