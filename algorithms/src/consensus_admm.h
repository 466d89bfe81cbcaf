// Consensus ADMM as a node program: the simplified decentralized ADMM of 004 eqs. (9)-(11)
// (the same as 003 eqs. (8)-(9)) for node i's objective
//     O(f, D_i) = (C/B_i) sum_n L(y_n f^T x_n) + (rho/N) ||f||^2 / 2        (003's O(f_i, D_i)).
//
// Round r >= 1 of node i receives f_j(r-1) from every neighbour j and
//   1. UpdateDual   (eq. 11, for r >= 2):  lambda_i(r-1) = lambda_i(r-2) + (eta/2) sum_j (f_i(r-1) - f_j(r-1))
//   2. UpdatePrimal (eqs. 9-10):           f_i(r) = argmin_f O(f, D_i) + 2 lambda_i(r-1)^T f
//                                                     + eta sum_j ||f - (f_i(r-1) + f_j(r-1)) / 2||^2
//   3. broadcasts f_i(r).
// Round 0 broadcasts f_i(0). The primal update is the local problem of LocalSolver with
//   a = rho/N + 2 eta V_i,   g = 2 lambda_i - eta (V_i f_i(r-1) + sum_j f_j(r-1)).
// Report layout: [f_i(r) (d values), (1/B_i) sum_n L(y_n f_i(r)^T x_n)].
#pragma once

#include <Eigen/Dense>

#include "dpadmm/algorithms/dataset.h"
#include "dpadmm/algorithms/local_solver.h"
#include "dpadmm/runtime/node_program.h"

namespace dpadmm {

struct ConsensusParams {
  double C = 1750.0;
  double rho = 0.22;  // total regulariser weight; each node carries rho / N
  double eta = 0.5;
  int num_nodes = 1;
};

class ConsensusAdmmNode : public runtime::NodeProgram {
 public:
  ConsensusAdmmNode(int id, const Dataset& data, int degree, const Loss& loss,
                    const NewtonOptions& newton, const ConsensusParams& params,
                    Eigen::VectorXd f0);

  std::size_t MaxMessageSize() const override { return static_cast<std::size_t>(f_.size()); }
  std::size_t ReportSize() const override { return static_cast<std::size_t>(f_.size()) + 1; }
  runtime::StepResult Start(runtime::Outbox& out) override;
  runtime::StepResult Step(std::int64_t round, const runtime::Inbox& in,
                           runtime::Outbox& out) override;
  void Report(std::int64_t round, std::span<double> out) const override;

 private:
  void UpdateDual(const runtime::Inbox& in);
  runtime::StepResult UpdatePrimal(std::int64_t round, const runtime::Inbox& in);
  void Broadcast(runtime::Outbox& out) const;

  int id_;
  int degree_;
  ConsensusParams params_;
  LocalSolver solver_;
  Eigen::VectorXd f_;       // f_i(r)
  Eigen::VectorXd lambda_;  // lambda_i(r-1)
  Eigen::VectorXd g_;       // workspace: linear term of the local problem
  double mean_loss_ = 0.0;  // (1/B_i) sum L at f_
};

}  // namespace dpadmm
