// SPDX-License-Identifier: Apache-2.0
// ADMM sharing (001 Algorithm 1, parallel form of updates (6)-(8)) and its private version (16)
// as node programs on a star: node 0 is the coordinator (holds the labels, z and y), nodes
// 1..M are the parties (party m holds the column block D_m and its weights x_m).
//
// Rounds (one ADMM iteration t = two rounds; the phase is chosen by the round's parity):
//   round 0      coordinator broadcasts [s^0 - z^0; y^0] = 0 (2N values); parties send nothing.
//   round 2t-1   party m receives [s^{t-1} - z^{t-1}; y^{t-1}], subtracts its cached share
//                D_m x~_m^{t-1} to get sum_{k != m} D_k x~_k^{t-1} - z^{t-1}, solves (6) exactly,
//                adds the noise of (16) if private, and broadcasts D_m x~_m^t (N values).
//                The coordinator sends nothing.
//   round 2t     the coordinator sums the parties' shares in party order, s^t = sum_m D_m x~_m^t,
//                solves (7) per sample, updates y by (8) and broadcasts [s^t - z^t; y^t].
//                Parties send nothing.
// So the state of iteration t is complete in the reports of round 2t.
//
// Every message leaves through the node's Release (dpadmm/privacy/release.h): a party's message
// with its noise drawn by the release (default: D_m x_m + N(0, sigma^2 I_N) on the lattice;
// variant paper16: D_m x~_m with the noise of (16)), debiting the per-iteration epsilon; the
// non-private algorithm and the coordinator use identity releases that
// cost nothing. A party whose budget refuses an iteration freezes and resends its last share.
//
// Report layout (width W = max(max_m d_m, 5), the same for every node):
//   party m:      [0, d_m) x_m (kGaussian: the party's own weights, never released;
//                 kPaper16: x~_m, the weights with the noise of (16)), the rest 0
//   coordinator:  [0] (1/N) sum_n log(1 + exp(-y_n s_n)) at the current s
//                 [1] ||s - z||_2   [2] ||y||_2   [3] ||z||_2   [4] Newton iterations of the z
//                 update
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "dpadmm/core/random.h"
#include "dpadmm/data/dataset.h"
#include "dpadmm/privacy/release.h"
#include "dpadmm/runtime/node_program.h"
#include "persistence/checkpoint.h"

namespace dpadmm::sharing {

// Columns [begin, begin + count) of `data` with the labels (same storage kind).
Dataset ColumnBlock(const Dataset& data, std::int64_t begin, std::int64_t count);
// D^T D (dense d x d).
Eigen::MatrixXd Gram(const Dataset& block);
// D x and D^T v.
Eigen::VectorXd Times(const Dataset& block, const Eigen::VectorXd& x);
Eigen::VectorXd TransposeTimes(const Dataset& block, const Eigen::VectorXd& v);

// The x update (6) in closed form. With c = sum_{k != m} D_k x_k^t - z^t,
//   x_m^{t+1} = argmin lambda ||x||^2/2 + <y^t, D_m x> + (rho/2) ||D_m x + c||^2
// solves (lambda I + rho D_m^T D_m) x = -D_m^T (y^t + rho c) = D_m^T (rho (z - s_{-m}) - y).
// The d_m x d_m matrix is factorised once (Cholesky; it is positive definite since lambda > 0).
//
// With bound b1 > 0 (the default DP mechanism, algorithms/sharing/README.md) the update is the
// x step of ADMM on the problem with the constraint ||x_m|| <= b1 added,
//   x = argmin_{||x|| <= b1} (1/2) x^T A x - rhs^T x,   A = lambda I + rho G,
// a trust-region subproblem with A positive definite: if the unconstrained solution has norm
// <= b1 it is the answer, else x(nu) = (A + nu I)^{-1} rhs with the nu > 0 at which
// ||x(nu)|| = b1 (||x(nu)|| decreases strictly in nu; bisection on the eigenbasis of G, computed
// once). The constrained problem is convex with a unique minimiser, so the step stays well
// defined, and ||x|| <= b1 holds exactly (a final rescale absorbs rounding).
class XUpdate {
 public:
  XUpdate(const Eigen::MatrixXd& gram, double lambda, double rho, double bound = 0.0);
  // x = (lambda I + rho G)^{-1} rhs, or its constrained version when bound > 0.
  void Solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) const;
  double bound() const { return bound_; }

 private:
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double lambda_ = 0.0;
  double bound_ = 0.0;
  Eigen::MatrixXd basis_;    // eigenvectors of A (bound > 0 only)
  Eigen::VectorXd eigen_a_;  // eigenvalues of A = lambda + rho g_i
};

// The noise of (16): xi ~ N(0, sigma^2 (D^T D)^{-1}).
// If G = D^T D is positive definite (Cholesky G = L L^T succeeds with every pivot above
// 1e-12 max_i G_ii), xi = sigma L^{-T} u with u ~ N(0, I_d): Cov = sigma^2 (L L^T)^{-1}.
// Otherwise (one-hot blocks make G singular: the columns of one attribute sum to the constant
// vector) the inverse does not exist and we use the pseudo-inverse: with G = V diag(g) V^T,
// xi = sigma sum_{g_i > tol} v_i u_i / sqrt(g_i), tol = 1e-10 max_i g_i, so Cov = sigma^2 G^+.
// The shared value D xi then has covariance sigma^2 D G^+ D^T = sigma^2 P (P = projection on
// the column space of D), exactly what it has with the inverse when G is regular: the Gaussian
// mechanism on D_m x_m that Theorem 3 analyses is unchanged. (A ridge G + kappa I instead would
// put noise of variance sigma^2 / kappa into directions the data cannot see.)
class GramNoise {
 public:
  explicit GramNoise(const Eigen::MatrixXd& gram);
  // Draws d standard normals from `stream` (always exactly d, in coordinate order) and writes xi
  // (DrawCorrelatedGaussian with factor()). The node programs draw through their Release.
  void Draw(Stream& stream, double sigma, Eigen::Ref<Eigen::VectorXd> out) const;
  // xi = sigma factor u, u ~ N(0, I_d).
  const Eigen::MatrixXd& factor() const { return factor_; }
  std::int64_t rank() const { return rank_; }
  bool uses_pseudo_inverse() const { return pseudo_; }

 private:
  bool pseudo_ = false;
  std::int64_t rank_ = 0;
  Eigen::MatrixXd factor_;  // L (Cholesky) or V diag(1/sqrt(g)) restricted to the kept columns
};

// The z update (7): for every sample n, independently,
//   z_n = argmin_z (1/N) log(1 + exp(-a_n z)) - y_n z + (rho/2) (s_n - z)^2,     a_n = label.
// (l is the AVERAGE log loss, so each sample's loss carries 1/N.) The objective is strongly
// convex with phi'' in [rho, rho + 1/(4N)], and since |d/dz log(1 + e^{-a z})| <= 1 the solution
// lies in [c - 1/(N rho), c + 1/(N rho)], c = s_n + y_n / rho. All samples take Newton steps from
// c in lockstep; a step leaving the sample's bracket (kept from the sign of phi') or not
// shrinking fast enough is replaced by bisection (rtsafe). A sample stops when its step is
// <= tolerance * max(1, |z_n|).
struct [[nodiscard]] ZUpdateReport {
  bool converged = true;
  int iterations = 0;
  std::int64_t worst_sample = -1;  // a sample that did not converge (when !converged)
};
ZUpdateReport UpdateZ(const Eigen::VectorXd& s, const Eigen::VectorXd& y,
                      const Eigen::VectorXd& labels, double rho, double tolerance,
                      int max_iterations, Eigen::VectorXd& z);

// (1/N) sum_n log(1 + exp(-labels_n s_n)).
double MeanLogLossOfScores(const Eigen::VectorXd& scores, const Eigen::VectorXd& labels);

constexpr std::size_t kCoordinatorFields = 5;

// Which noise a private party adds (algorithms/sharing/README.md).
//  kGaussian: N(0, sigma^2 I_N) on the message D_m x_m (exact discrete Gaussian on the lattice,
//             through the Release), ||x_m|| <= b1 enforced by the x step: differentially private.
//  kPaper16:  001 eq. (16), xi ~ N(0, sigma^2 (D_m^T D_m)^{-1}) on x_m. NOT DP as stated: the
//             noise covariance is made of the private data, so releases lie in col(D_m).
enum class SharingMechanism { kGaussian, kPaper16 };

struct PartyParams {
  int party = 1;  // m, 1-based (= node id)
  SharingMechanism mechanism = SharingMechanism::kGaussian;
  double lambda = 1e-4;
  double rho = 1.0;
  double sigma = 0.0;  // 0 = no noise
  // Privacy cost of one iteration's release (001 Theorem 3's epsilon for sigma), debited by
  // the party's release; 0 for the non-private algorithm.
  double epsilon = 0.0;
  double privacy_budget = 0.0;  // the party's budget of summed epsilons (0 = none)
  // Set: simulation mode (noise key derived from it, not private); unset: private mode.
  std::optional<std::uint64_t> noise_seed;
  std::size_t report_width = 5;
};

class SharingParty : public runtime::NodeProgram, public Checkpointable {
 public:
  // `block` (features only: a block with labels is refused, std::invalid_argument), `xupdate`
  // and `noise` must outlive the program; noise (the sampler of (16)) is used by kPaper16 only
  // and may be null otherwise.
  SharingParty(const Dataset& block, const XUpdate& xupdate, const GramNoise* noise,
               const PartyParams& params);

  std::size_t MaxMessageSize() const override { return static_cast<std::size_t>(rows_); }
  std::size_t ReportSize() const override { return params_.report_width; }
  // The engine checks the reported weights x~_m for NaN/Inf.
  std::size_t FiniteReportPrefix() const override { return static_cast<std::size_t>(x_.size()); }
  runtime::StepResult Start(runtime::Outbox& out) override;
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override;
  void Report(std::int64_t round, std::span<double> out) const override;

  const Release& release() const { return release_; }

  // Checkpoints (persistence/checkpoint.h): x~_m, the cached shares, the last noise, the release.
  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 private:
  // 001 eq. (6) (+ (16) when private).
  runtime::StepResult UpdatePrimal(std::int64_t round, std::span<const double> message);

  const Dataset& block_;
  const XUpdate& xupdate_;
  const GramNoise* noise_;
  PartyParams params_;
  std::int64_t rows_;
  Release release_;
  Eigen::VectorXd x_;      // x~_m^t (released)
  Eigen::VectorXd share_;  // D_m x~_m^t (cached, subtracted from the next message)
  Eigen::VectorXd xi_;
  Eigen::VectorXd message_noise_;  // kGaussian: the lattice noise of the round (N values)
  Eigen::VectorXd clean_share_;    // kGaussian: D_m x_m without the noise (never sent)
};

struct CoordinatorParams {
  int parties = 1;
  double rho = 1.0;
  double z_tolerance = 1e-13;
  int z_max_iterations = 100;
  std::size_t report_width = 5;
};

class SharingCoordinator : public runtime::NodeProgram, public Checkpointable {
 public:
  SharingCoordinator(const Eigen::VectorXd& labels, const CoordinatorParams& params);

  std::size_t MaxMessageSize() const override {
    return 2 * static_cast<std::size_t>(labels_.size());
  }
  std::size_t ReportSize() const override { return params_.report_width; }
  runtime::StepResult Start(runtime::Outbox& out) override;
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override;
  void Report(std::int64_t round, std::span<double> out) const override;

  const Eigen::VectorXd& z() const { return z_; }
  const Eigen::VectorXd& y() const { return y_; }

  // Checkpoints (persistence/checkpoint.h): s, z, y, the last message and report figures.
  void SaveState(StateWriter& out) const override;
  void LoadState(StateReader& in) override;

 private:
  // [s - z; y] into message_.
  void ComposeMessage();
  // 001 eq. (7).
  runtime::StepResult UpdateAuxiliary(std::int64_t round);
  // 001 eq. (8).
  void UpdateDual();

  Eigen::VectorXd labels_;
  CoordinatorParams params_;
  Release release_;  // identity release: the coordinator's messages carry no noise and no cost
  Eigen::VectorXd s_, z_, y_, message_;
  double mean_loss_ = 0.0;
  int z_iterations_ = 0;
};

}  // namespace dpadmm::sharing
