// SPDX-License-Identifier: Apache-2.0
// PDML Phase 2 (000 Section IV-B): one server's node program on the fully distributed ADMM
// (9)-(10) perturbed as in (14)-(17).
//
// Server i holds m_i reported samples (x_j, y'_j) with per-user eps_j (Phase 1 already done:
// the server never sees a true label). Its perturbed local objective, (22) with (14), is
//     J~_i(w) = (C/m_i) sum_j l~(y'_j, w^T x_j, eps_j) + (rho_i/2) ||w||^2 + (C/m_i) eta_i^T w,
// with ||eta_i||_2 <= R drawn once per server (uniform in the ball), C = 1 and rho_i = a/n
// giving the paper's (1)/(3)/(22) (a/n per server so that the sum over servers carries a, as in
// Lemma 1's a-kappa strong convexity) and (14)'s (1/m_i) eta_i^T w_i (the normalisation of
// Chaudhuri et al.'s objective perturbation, on which (14) is built; the extraction lost the
// factor, see bench/README.md). C != 1 scales loss and noise together.
//
// For the logistic loss, l~(y', z, eps) = l(y'z) - y'z / (e^eps - 1) (pdml.h), so
//     J~_i(w) = (C/m_i) sum_j l(y'_j x_j^T w) + (rho_i/2)||w||^2 + c_i^T w,
//     c_i = (C/m_i) (eta_i - sum_j y'_j x_j / (e^eps_j - 1)),
// and every primal update (15) is LocalSolver's problem with
//     a = rho_i + 2 beta N_i,
//     g = gamma_i(t) + c_i - beta (N_i w~_i(t) + sum_{l in N_i} w~_l(t)),
// which is (15)'s beta sum_l ||w - (w~_i(t) + w~_l(t))/2||^2 expanded.
//
// Round r >= 1 of the runtime receives w~_l(r-1) from every neighbour l and does
//   (17) gamma_i(r-1) = gamma_i(r-2) + beta sum_l (w~_i(r-1) - w~_l(r-1))   (r >= 2; gamma(0) = 0)
//   (15) w_i(r) = argmin_w L~_i(w, {w~_l(r-1)}_{l in N_i u {i}}, gamma_i(r-1))
//   (16) w~_i(r) = w_i(r) + theta_i(r), theta_i(r) ~ N(0, decay^(r-1) V^2 I); broadcast w~_i(r).
// Round 0 broadcasts w~_i(0) = w_i(0) (no noise: theta is indexed from t = 1).
//
// Every value the node sends goes through its Release (consensus_node.h): w~_i(r) with the
// Gaussian theta_i(r) drawn by the release, and eta_i of (14) drawn once by it before round 1.
// 000 gives no per-round privacy accounting for Phase 2, so every round costs 0 and the node
// never freezes.
//
// Report layout: ConsensusReport (consensus_node.h), with
//   [0, d)  w_i(r), the server's own (unperturbed) classifier, which the paper evaluates
//   kLoss   NaN: the empirical risk is measured on the TRUE labels outside the node (the node
//           only has the reported ones), by the run's evaluator
//   kPrivacySpent  label privacy of the node's users: the largest eps among its randomized
//           users (0 if none is randomized); constant over rounds (post-processing, 000 IV-C)
//   kNextPrivacyLoss  0: a round adds no label privacy loss
//   kNoise  standard deviation of theta_i(r) (0 in round 0 or when V = 0)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "consensus/consensus_node.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/runtime/node_program.h"
#include "dpadmm/solver/local_solver.h"

namespace dpadmm {

struct PdmlNodeParams {
  double C = 1.0;         // loss weight (per sample C / m_i)
  double rho_node = 0.0;  // rho_i = a / n
  double beta = 0.1;      // ADMM penalty of (15)-(17)
  double R = 0.0;         // bound of ||eta_i||_2, eq. (14); 0 = no objective perturbation
  double V = 0.0;         // initial std of theta_i(t), eq. (16); 0 = no primal perturbation
  double decay = 0.8;     // rho of eq. (16): variance decay^(t-1) V^2, in (0, 1]
  // The largest debiasing weight 1 / (e^eps - 1) any record may carry (over the public label
  // eps levels; 0 for eps = 0): it bounds a record's gradient, so Phase 2's sensitivity.
  double max_debias_weight = 0.0;
  std::optional<std::uint64_t> noise_seed;  // as ConsensusNodeParams::noise_seed
};

class PdmlNode : public ConsensusNode {
 public:
  // `reported` holds the node's rows with the REPORTED labels y'; `eps` one value per row
  // (0 = truthful). Throws InputError for a loss other than logistic, an eps vector of the wrong
  // size or a negative / non-finite eps, or invalid parameters.
  PdmlNode(int id, const Dataset& reported, const Eigen::VectorXd& eps, int degree,
           const Loss& loss, const NewtonOptions& newton, const PdmlNodeParams& params,
           Eigen::VectorXd w0);

  // 000: the constant ADMM penalty beta.
  double Penalty(std::int64_t /*round*/) const override { return params_.beta; }

  // The bounded objective noise eta_i of (14) (drawn once, in the constructor).
  const Eigen::VectorXd& objective_noise() const { return eta_; }
  // c_i: the constant linear term of J~_i (debiasing plus objective perturbation).
  const Eigen::VectorXd& linear_term() const { return linear_; }
  // The dual variable gamma_i as of the last step.
  const Eigen::VectorXd& dual() const { return gamma_; }
  // The value broadcast in the last round, w~_i.
  const Eigen::VectorXd& released() const { return released_; }
  // Phase 2's L2 sensitivity of w_i(r) to one record replaced (algorithms/privacy/README.md,
  // "PDML Phase 2"): 2 (C / m_i) (1 + max debias weight) / (rho_i + 2 beta N_i).
  double sensitivity() const { return sensitivity_; }
  // Round r's release w~_i(r) = RoundToGrid(w_i(r)) + theta_i(r) as a Gaussian mechanism:
  // sensitivity() plus the grid's sqrt(d) step, scale sqrt(decay^(r-1)) V; none when V = 0.
  std::optional<MechanismRelease> Mechanism(std::int64_t round) const override;

  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 protected:
  void Initialize() override;
  runtime::StepResult Iterate(std::int64_t round) override;
  const Eigen::VectorXd& Released() const override { return released_; }
  double ReportedPrivacy() const override { return max_label_eps_; }

 private:
  // (17), for the previous iteration, now that the neighbours' w~_l(r-1) have arrived.
  void UpdateDual(std::int64_t round);
  // (15): w_i(r) = argmin J~_i(w) + gamma_i^T w + beta sum_l ||w - (w~_i(r-1) + w~_l(r-1))/2||^2.
  runtime::StepResult UpdatePrimal(std::int64_t round);
  // (16): w~_i(r) = w_i(r) + theta_i(r), theta_i(r) ~ N(0, decay^(r-1) V^2 I), via the release.
  void PerturbPrimal(std::int64_t round);

  PdmlNodeParams params_;
  double max_label_eps_ = 0.0;
  double sensitivity_ = 0.0;
  Eigen::VectorXd released_;  // w~_i(r) = w_i(r) + theta_i(r); w_i(r) is the base's f_
  Eigen::VectorXd gamma_;     // gamma_i
  Eigen::VectorXd eta_;       // eta_i of (14)
  Eigen::VectorXd linear_;    // c_i
  Eigen::VectorXd theta_;
};

struct ReportedLabels;
// RunInfo::privacy_guarantee for a PDML run: the label privacy actually drawn (eps over all users:
// min / median / max, the share reporting truthfully) and the Phase 2 parameters, with what 000
// does and does not prove about them.
std::string PdmlPrivacyGuarantee(const std::vector<ReportedLabels>& reported, double R, double V,
                                 double decay);

}  // namespace dpadmm
