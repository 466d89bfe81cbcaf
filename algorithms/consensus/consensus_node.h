// SPDX-License-Identifier: Apache-2.0
// The machinery every consensus-family node program shares (004, 002, 003, 000).
//
// Node i minimises, together with its neighbours,
//     O(f, D_i) = (C/B_i) sum_n L(y_n f^T x_n) + rho_i ||f||^2 / 2,
// with rho_i = rho / N (003's O(f_i, D_i)) or rho (004's DR-ERM (3), rho_per_node).
// Round r >= 1 receives f_j(r-1) from every neighbour j; round 0 broadcasts f_i(0). Every primal
// update is the local problem of LocalSolver,  min (C/B) sum L + (a/2)||f||^2 + g^T f, with
//   a = rho_i + 2 eta V_i (+ the variant's extra penalty),
//   g = dual - eta (V_i f_i(r-1) + sum_j f_j(r-1))  (+ the variant's linear noise term),
// which is 004 eq. (9) / 003 eq. (8) / 000 eq. (15) with the penalty expanded:
//   eta sum_j ||f - (f_i + f_j)/2||^2 = eta V ||f||^2 - eta f^T sum_j (f_i + f_j) + const.
//
// The base owns the round protocol: Step() opens the round at the node's Release with the cost
// the variant's paper gives (PrivacyLoss), lets the variant compute (Iterate), and sends what
// Released() returns through the release. A refused round freezes the node: it resends its last
// release and computes nothing. The variants never see the outgoing buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/data/dataset.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/runtime/node_program.h"
#include "dpadmm/solver/local_solver.h"
#include "persistence/checkpoint.h"

namespace dpadmm {

// Report layout of every consensus-family node program: [0, d) the node's model, then these
// offsets relative to d (ReportSize = d + kFields).
struct ConsensusReport {
  // (1/B_i) sum_n L(y_n f_i(r)^T x_n), or NaN when the round did not touch the data (R-ADMM even
  // rounds, PVP's released point, PDML's true-label risk, frozen rounds of those): the
  // evaluation then computes it outside the node.
  static constexpr std::size_t kLoss = 0;
  // Privacy loss node i spent up to round r, read from its release (PDML: the label privacy of
  // its users, the largest eps of Phase 1; constant).
  static constexpr std::size_t kPrivacySpent = 1;
  // The privacy loss node i's next round would add (0 for a frozen node).
  static constexpr std::size_t kNextPrivacyLoss = 2;
  // The noise parameter drawn in round r (zeta, alpha or PDML's standard deviation; 0: none).
  static constexpr std::size_t kNoise = 3;
  // 1 when the node is frozen (its release was refused by its budget), else 0.
  static constexpr std::size_t kFrozen = 4;
  // The round whose release was refused, or -1.
  static constexpr std::size_t kFrozenRound = 5;
  // The floating-point delta node i's snapped releases have added so far
  // (Release::spent_delta; 0 without l2-Laplace noise).
  static constexpr std::size_t kSpentDelta = 6;
  static constexpr std::size_t kFields = 7;
};

class ConsensusNode : public runtime::NodeProgram, public Checkpointable {
 public:
  // Loss weights C / B_i; the release holds the node's noise key, made here (from the
  // operating system, or from (noise_seed, id) in simulation mode: noise_key.h), and refuses
  // rounds beyond `privacy_budget` (0 = none).
  ConsensusNode(int id, const Dataset& data, double C, int degree, const Loss& loss,
                const NewtonOptions& newton, Eigen::VectorXd f0,
                const std::optional<std::uint64_t>& noise_seed, double privacy_budget);

  std::size_t MaxMessageSize() const final { return static_cast<std::size_t>(dim_); }
  // The engine checks the reported model f_i for NaN/Inf (the loss field may be NaN by design).
  std::size_t FiniteReportPrefix() const final { return static_cast<std::size_t>(dim_); }
  std::size_t ReportSize() const final {
    return static_cast<std::size_t>(dim_) + ConsensusReport::kFields;
  }
  runtime::StepResult Start(runtime::Outbox& out) final;
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) final;
  void Report(std::int64_t round, std::span<double> out) const final;

  // Passes over the node's training rows so far (tests check R-ADMM's even rounds make none).
  std::int64_t data_passes() const { return data_passes_; }
  // Penalty eta_i used in round r >= 1.
  virtual double Penalty(std::int64_t round) const = 0;
  // The privacy parameter alpha_i of round r >= 1 (0 when the round draws no noise).
  virtual double Alpha(std::int64_t /*round*/) const { return 0.0; }
  // The privacy loss that round r >= 1 adds for this node, per the variant's paper.
  virtual double PrivacyLoss(std::int64_t /*round*/) const { return 0.0; }
  // The mechanism of round r's release, for the tight accountant; none for a round without
  // noise. Default: the paper's term as a pure-epsilon release (when PrivacyLoss(r) > 0). A
  // round with a mechanism is private: its local solve must reach the pinned tolerance.
  virtual std::optional<MechanismRelease> Mechanism(std::int64_t round) const;
  // The node's release point (spent, frozen, frozen round).
  const Release& release() const { return release_; }
  // The mechanism of every round the node released with noise, in order (Release::mechanisms):
  // the input of the tight composition (accounting.h, ComposeTightMechanisms). The papers'
  // consensus mechanisms release pure-epsilon terms; PDML's primal noise is Gaussian.
  const std::vector<MechanismRelease>& released_mechanisms() const { return release_.mechanisms(); }

  // The gossip tail: from round `first_round` on, the node sends
  //   x_i(r) = x_i(r-1) + sum_j w_ij (x_j(r-1) - x_i(r-1)),  w_ij = 1 / (1 + max(V_i, V_j)),
  // from its own and its neighbours' last releases (post-processing: cost 0, no mechanism, not
  // snapped), which keeps their mean (w is symmetric) and brings every node to it on a connected
  // graph. `neighbour_degrees`: V_j of each neighbour in inbox order. InputError for a first
  // round < 2 or a degree list that does not match the node's.
  void SetGossipTail(std::int64_t first_round, const std::vector<int>& neighbour_degrees);
  // True when round r is a gossip round.
  bool Gossiping(std::int64_t round) const { return gossip_from_ > 0 && round >= gossip_from_; }

  // Checkpoints (persistence/checkpoint.h): the node's state between rounds, with its release's
  // and local solver's; a variant adds its own fields after the base's.
  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 protected:
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

  // Round 0's computation before f_i(0) is released (default: the loss at f_i(0)).
  virtual void Initialize();
  // One round's computation, after the neighbours' values are summed into neighbours_.
  virtual runtime::StepResult Iterate(std::int64_t round) = 0;
  // The value the node releases at the end of a round (and in round 0).
  virtual const Eigen::VectorXd& Released() const { return f_; }
  // The model written to the report (the released value unless the variant says otherwise).
  virtual const Eigen::VectorXd& ReportedModel() const { return f_; }
  // The privacy value written at ConsensusReport::kPrivacySpent.
  virtual double ReportedPrivacy() const { return release_.spent(); }
  // Reads round r's inbox (the neighbours' round r-1 releases) before Iterate. Default: their
  // sum into neighbours_. A baseline that never listens reads nothing.
  virtual void ReceiveNeighbours(std::int64_t round, const runtime::Inbox& in);
  // True when round r's message is a function of values already released (the node's own and
  // its neighbours'): the round is opened at cost 0 without a mechanism and Released() goes out
  // through Release::SendPostProcessed (no cost, no delta, not snapped).
  virtual bool PostProcessed(std::int64_t /*round*/) const { return false; }

  // lambda += weight (V own - sum_j f_j(r-1)): the dual step of 004 eq. (11), 003 eqs. (13)/(15),
  // 002's dual update and 000 eq. (17) (there with weight beta and gamma = 2 lambda).
  void AddDisagreement(Eigen::VectorXd& dual, double weight, const Eigen::VectorXd& own) const {
    dual += weight * (static_cast<double>(degree_) * own - neighbours_);
  }
  // g = linear - eta (V own + sum_j f_j(r-1)): the penalty's linear term (expanded above).
  template <class Linear>
  void PenaltyLinearTerm(const Eigen::MatrixBase<Linear>& linear, double eta,
                         const Eigen::VectorXd& own) {
    g_ = linear - eta * (static_cast<double>(degree_) * own + neighbours_);
  }
  // Solves min (C/B) sum L + (a/2)||f||^2 + g_^T f from f_ (warm start) into `f`; counts a
  // data pass; returns a failure naming node and round for a non-finite result.
  runtime::StepResult SolveLocal(std::int64_t round, double a, Eigen::VectorXd& f);
  runtime::StepResult Diverged(std::int64_t round, const char* what, SolveStatus status) const;

  int id_;
  int degree_;
  std::int64_t dim_;
  double rows_;
  LocalSolver solver_;
  Release release_;
  Eigen::VectorXd f_;           // f_i(r)
  Eigen::VectorXd neighbours_;  // sum_j f_j(r-1)
  Eigen::VectorXd g_;           // linear term of the local problem
  Eigen::VectorXd noise_;       // the round's noise vector
  double mean_loss_ = 0.0;
  double noise_parameter_ = 0.0;
  double loss_sum_ = 0.0;  // sum_n w_n L of the last solve
  std::int64_t data_passes_ = 0;

 private:
  void SumNeighbours(const runtime::Inbox& in);
  void Gossip(const runtime::Inbox& in);

  std::int64_t gossip_from_ = 0;        // first gossip round; 0 = none
  std::vector<double> gossip_weights_;  // w_ij in inbox order
  Eigen::VectorXd gossip_;              // the gossip round's value
};

}  // namespace dpadmm
