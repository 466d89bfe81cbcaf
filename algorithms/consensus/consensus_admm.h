// The consensus family as one node program. Node i minimises, together with its neighbours,
//     O(f, D_i) = (C/B_i) sum_n L(y_n f^T x_n) + rho_i ||f||^2 / 2,
// with rho_i = rho / N (003's O(f_i, D_i)) or rho (004's DR-ERM (3), rho_per_node).
//
// Round r >= 1 receives f_j(r-1) from every neighbour j; round 0 broadcasts f_i(0). Every primal
// update is the local problem of LocalSolver,  min (C/B) sum L + (a/2)||f||^2 + g^T f, with
//   a = rho_i + 2 eta V_i (+ Phi for DVP),
//   g = 2 lambda - eta (V_i f_i(r-1) + sum_j f_j(r-1))  (+ the variant's linear noise term),
// which is 004 eq. (9) / 003 eq. (8) with the penalty expanded:
//   eta sum_j ||f - (f_i + f_j)/2||^2 = eta V ||f||^2 - eta f^T sum_j (f_i + f_j) + const.
//
// Variants (ConsensusVariant) differ in the penalty schedule, the dual step, the noise and what
// even rounds do; each step below cites its equation. Privacy accounting per node and round is
// computed with the free functions of accounting.h and reported with the model.
//
// Report layout (ReportSize = d + 4):
//   [0, d)  f_i(r)
//   d       (1/B_i) sum_n L(y_n f_i(r)^T x_n), or NaN when the round did not touch the data
//           (R-ADMM even rounds): the evaluation then computes it outside the node
//   d + 1   privacy loss of node i accumulated up to round r (0 for non-private variants)
//   d + 2   the privacy loss node i's next round would add (for budget checks)
//   d + 3   the noise parameter used in round r (zeta or alpha; 0 when no noise was drawn)
#pragma once

#include <cstdint>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/solver/local_solver.h"
#include "dpadmm/runtime/node_program.h"

namespace dpadmm {

enum class ConsensusVariant { kAdmm, kDvp, kPvp, kMadmm, kRadmm, kMradmm, kPrivateMradmm };
// Throws InputError for an unknown name.
ConsensusVariant ParseConsensusVariant(const std::string& name);
bool IsPrivate(ConsensusVariant v, double alpha);

// Parameters of one node (already resolved from the spec's scalars and per-node vectors).
struct ConsensusNodeParams {
  ConsensusVariant variant = ConsensusVariant::kAdmm;
  double C = 1750.0;
  double rho_node = 0.022;  // the node's regulariser weight rho_i
  int num_nodes = 1;        // N
  double eta = 0.5;         // base penalty (theta for M-ADMM)
  double q1 = 1.0;          // penalty growth
  double alpha = 0.0;       // privacy parameter of the first noisy round; 0 = no noise
  double q2 = 1.0;          // its geometric factor
  double gamma = 0.5;       // R-ADMM even-step term
  double dual_step = 0.0;   // M-ADMM theta for the dual update; 0 = eta_i(1)
  std::uint64_t seed = 1;
};

class ConsensusNode : public runtime::NodeProgram {
 public:
  ConsensusNode(int id, const Dataset& data, int degree, const Loss& loss,
                const NewtonOptions& newton, const ConsensusNodeParams& params,
                Eigen::VectorXd f0);

  std::size_t MaxMessageSize() const override { return static_cast<std::size_t>(dim_); }
  std::size_t ReportSize() const override { return static_cast<std::size_t>(dim_) + 4; }
  runtime::StepResult Start(runtime::Outbox& out) override;
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override;
  void Report(std::int64_t round, std::span<double> out) const override;

  // Passes over the node's training rows so far (tests check R-ADMM's even rounds make none).
  std::int64_t data_passes() const { return data_passes_; }
  // Penalty eta_i used in round r >= 1 (exposed for tests and the trace).
  double Penalty(std::int64_t round) const;
  // The privacy parameter alpha_i of round r >= 1 (0 when the round draws no noise).
  double Alpha(std::int64_t round) const;
  // The privacy loss that round r >= 1 adds for this node, per the variant's paper.
  double PrivacyLoss(std::int64_t round) const;

 private:
  bool IsEvenRecycledRound(std::int64_t round) const;
  void SumNeighbours(const runtime::Inbox& in);
  void UpdateDual(std::int64_t round);
  runtime::StepResult UpdatePrimal(std::int64_t round);
  void UpdatePrimalRecycled(std::int64_t round);
  runtime::StepResult Check(std::int64_t round, const char* what, SolveStatus status) const;
  void DrawNoise(std::int64_t round, double zeta);

  int id_;
  int degree_;
  std::int64_t dim_;
  double rows_;
  ConsensusNodeParams params_;
  LocalSolver solver_;
  Eigen::VectorXd f_;          // f_i(r)
  Eigen::VectorXd f_prev_;     // f_i(r-1)
  Eigen::VectorXd lambda_;     // lambda_i
  Eigen::VectorXd neighbours_; // sum_j f_j(r-1)
  Eigen::VectorXd g_;          // linear term of the local problem
  Eigen::VectorXd noise_;      // the round's noise vector
  Eigen::VectorXd recycled_;   // R-ADMM: grad O(f_i(2k-1)) (+ eps for the private version)
  double mean_loss_ = 0.0;
  double privacy_spent_ = 0.0;
  double noise_parameter_ = 0.0;
  std::int64_t data_passes_ = 0;
};

}  // namespace dpadmm
