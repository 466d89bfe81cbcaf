// SPDX-License-Identifier: Apache-2.0
#include "consensus/pdml_node.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "core/field_error.h"
#include "dpadmm/consensus/pdml.h"
#include "dpadmm/core/error.h"
#include "dpadmm/privacy/samplers.h"

namespace dpadmm {
namespace {

using detail::Bad;

}  // namespace

PdmlNode::PdmlNode(int id, const Dataset& reported, const Eigen::VectorXd& eps, int degree,
                   const Loss& loss, const NewtonOptions& newton, const PdmlNodeParams& params,
                   Eigen::VectorXd w0)
    : ConsensusNode(id, reported, params.C, degree, loss, newton, std::move(w0), params.noise_seed,
                    /*privacy_budget=*/0.0),
      params_(params),
      released_(f_),
      gamma_(Eigen::VectorXd::Zero(dim_)),
      eta_(Eigen::VectorXd::Zero(dim_)),
      linear_(Eigen::VectorXd::Zero(dim_)),
      theta_(Eigen::VectorXd::Zero(dim_)) {
  mean_loss_ = kNaN;  // the empirical risk on the true labels is evaluated outside the node
  if (loss.kind != LossKind::kLogistic) {
    throw InputError(
        "loss.kind: pdml needs the logistic loss (the debiased smooth hinge, "
        "eq. (19), is not convex), got " +
        loss.Name());
  }
  if (eps.size() != reported.rows()) {
    throw InputError("pdml node " + std::to_string(id) + ": " + std::to_string(eps.size()) +
                     " eps values for " + std::to_string(reported.rows()) + " rows");
  }
  if (!(params.R >= 0.0) || !std::isfinite(params.R)) Bad("algorithm.pdml_R", ">= 0", params.R);
  if (!(params.V >= 0.0) || !std::isfinite(params.V)) Bad("algorithm.pdml_V", ">= 0", params.V);
  if (!(params.decay > 0.0 && params.decay <= 1.0)) {
    Bad("algorithm.pdml_decay", "in (0, 1]", params.decay);
  }
  if (!(params.beta > 0.0) || !std::isfinite(params.beta)) {
    Bad("algorithm.eta (beta)", "> 0", params.beta);
  }
  if (!(params.max_debias_weight >= 0.0) || !std::isfinite(params.max_debias_weight)) {
    Bad("pdml max_debias_weight", ">= 0 and finite", params.max_debias_weight);
  }
  const double weight = params.C / static_cast<double>(reported.rows());
  // Debiasing term of (19) for the logistic loss: -(C/m_i) sum_j y'_j x_j / (e^eps_j - 1).
  Eigen::VectorXd coef(reported.rows());
  for (Eigen::Index j = 0; j < coef.size(); ++j) {
    if (!(eps[j] >= 0.0) || !std::isfinite(eps[j])) {
      throw InputError("pdml node " + std::to_string(id) + ": eps of row " + std::to_string(j) +
                       " must be >= 0 and finite");
    }
    coef[j] = DebiasWeight(eps[j]) * reported.y[j];
    if (eps[j] > 0.0) max_label_eps_ = std::max(max_label_eps_, eps[j]);
  }
  // Phase 2's sensitivity (algorithms/privacy/README.md, "PDML Phase 2"). Row j's gradient is
  // (C/m_i) y'_j (l'(y'_j w.x_j) - DW_j) x_j with l' in (-1, 0) for the logistic loss, so its
  // norm is at most (C/m_i)(1 + DW_j) for ||x_j|| <= 1; replacing a record moves the gradient of
  // the local objective by at most twice that, and its minimiser (strongly convex with modulus
  // a = rho_i + 2 beta N_i) by that over a. The weight bound is the larger of the public one and
  // this node's own rows' (a record can carry any public eps level).
  double max_weight = params.max_debias_weight;
  for (Eigen::Index j = 0; j < eps.size(); ++j) {
    max_weight = std::max(max_weight, DebiasWeight(eps[j]));
  }
  const double a = params.rho_node + 2.0 * params.beta * static_cast<double>(degree);
  if (params.V > 0.0 && !(a > 0.0)) {
    throw InputError("pdml node " + std::to_string(id) +
                     ": the primal noise (pdml_V > 0) needs a strongly convex local problem, "
                     "but the node has no neighbours and rho = 0 (set rho > 0)");
  }
  sensitivity_ = PdmlPhase2Sensitivity(params.C, reported.rows(), max_weight, params.rho_node,
                                       params.beta, degree);
  linear_ = VisitRows(
      reported, [&](const auto& x) -> Eigen::VectorXd { return -weight * (x.transpose() * coef); });
  // (14): bounded noise eta_i, ||eta_i||_2 <= R, drawn once per server; enters as (1/m_i) eta^T w.
  if (params.R > 0.0) {
    release_.DrawObjectiveNoise(params.R, eta_);
    linear_ += weight * eta_;
  }
}

std::optional<MechanismRelease> PdmlNode::Mechanism(std::int64_t round) const {
  const double sigma = PrimalNoiseStd(params_.V, params_.decay, round);
  if (!(sigma > 0.0)) return std::nullopt;
  // DrawGaussian rounds the variance up: sigma is a lower bound of the noise used, so the
  // figure is conservative; rounding w_i(r) to the lattice adds sqrt(d) step to the sensitivity.
  return MechanismRelease{MechanismKind::kGaussian,
                          sensitivity_ + GridSensitivityL2(dim_, GaussianGridStep(sigma)), sigma,
                          0.0};
}

void PdmlNode::Initialize() {
  // w~_i(0) = w_i(0): theta_i(t) is indexed from t = 1. No data pass: the loss is reported NaN.
  released_ = f_;
}

runtime::StepResult PdmlNode::Iterate(std::int64_t round) {
  UpdateDual(round);
  runtime::StepResult r = UpdatePrimal(round);
  if (!r.ok) return r;
  PerturbPrimal(round);
  return runtime::StepResult::Ok();
}

// (17): gamma_i(r-1) = gamma_i(r-2) + beta sum_l (w~_i(r-1) - w~_l(r-1)).
// With gamma_i(0) = 0 the first update happens in round 2 (after iteration t = 1), as for
// AdmmNode, so that PDML without noise is exactly the consensus "admm" algorithm.
void PdmlNode::UpdateDual(std::int64_t round) {
  if (round < 2) return;
  AddDisagreement(gamma_, params_.beta, released_);
}

runtime::StepResult PdmlNode::UpdatePrimal(std::int64_t round) {
  const double N = static_cast<double>(degree_);
  const double a = params_.rho_node + 2.0 * params_.beta * N;
  PenaltyLinearTerm(gamma_ + linear_, params_.beta, released_);
  return SolveLocal(round, a, f_);
}

void PdmlNode::PerturbPrimal(std::int64_t round) {
  noise_parameter_ = PrimalNoiseStd(params_.V, params_.decay, round);
  released_ = f_;
  if (noise_parameter_ > 0.0) {
    // The exact discrete Gaussian on the lattice step Z^d: the model rounded to the lattice plus
    // the lattice noise is exact in doubles, so the release is exactly that mechanism.
    const double step = release_.DrawGaussian(noise_parameter_, theta_);
    released_ = f_.unaryExpr([step](double v) { return RoundToGrid(v, step); }) + theta_;
  }
}

void PdmlNode::SaveState(StateWriter& out) const {
  ConsensusNode::SaveState(out);
  out.F64(max_label_eps_);
  for (const Eigen::VectorXd* v : {&released_, &gamma_, &eta_, &linear_, &theta_}) out.Vec(*v);
}

void PdmlNode::LoadState(StateReader& in) {
  ConsensusNode::LoadState(in);
  max_label_eps_ = in.F64("label eps");
  released_ = in.EVec("released model", dim_);
  gamma_ = in.EVec("dual", dim_);
  eta_ = in.EVec("objective noise", dim_);
  linear_ = in.EVec("linear term", dim_);
  theta_ = in.EVec("primal noise", dim_);
}

}  // namespace dpadmm
