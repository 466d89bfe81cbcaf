// RunSpec: everything that defines a run, with named defaults. Validate() checks every field
// and throws InputError naming the field ("algorithm.eta must be > 0, got -1").
// The defaults are the main job: non-private consensus ADMM, 10 nodes on a random connected
// graph with 13 edges, logistic regression on generated twonorm data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dpadmm/solver/local_solver.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

struct DataSpec {
  // "twonorm" | "ringnorm" | "sparse" (generated) | "libsvm" | "adult" | "csv" | "asc"
  std::string source = "twonorm";
  std::string train_path;   // file sources
  std::string test_path;    // optional for libsvm/csv/asc (else a seeded split); required for adult
  std::string train_labels_path;  // asc only
  std::string test_labels_path;   // asc only
  std::int64_t num_features = 0;  // libsvm: 0 = infer
  int label_column = -1;          // csv
  char delimiter = ',';           // csv
  bool has_header = false;        // csv
  std::int64_t rows = 7400;       // generated sources: rows before the split
  std::int64_t dims = 20;         // twonorm/ringnorm; sparse: features
  double test_fraction = 0.3;     // when no test file: share of rows held out, in (0, 1)
  bool normalize = true;          // scale rows so the largest norm (train and test) is 1
  // Append a constant feature 1 to every row (train and test) before normalisation: an
  // intercept term (regularised like the other weights).
  bool add_bias = false;
};

struct GraphSpec {
  // "ring" | "star" | "complete" | "grid" | "random" | "file"
  std::string topology = "random";
  int nodes = 10;
  int edges = 13;           // random only
  int grid_rows = 0;        // grid: rows x (nodes / rows); 0 = as square as possible
  std::string file;         // file only
};

struct PartitionSpec {
  std::string kind = "even";        // "even" | "proportional" | "dirichlet" | "file"
  std::vector<double> proportions;  // proportional: one per node
  double dirichlet_alpha = 1.0;     // dirichlet
  std::string file;                 // file
};

// The consensus family. Names:
//   "admm"            simplified decentralized ADMM, 004 eqs. (9)-(11)
//   "dvp"             dual variable perturbation, 004 Algorithm 2, eqs. (13)-(16)
//   "pvp"             primal variable perturbation (exact update, release f + noise)
//   "madmm"           M-ADMM with penalty perturbation, 002 (q1 = 1: the DVP-like special case)
//   "radmm"           Recycled ADMM, 003 Algorithm 1, eqs. (10)-(13)
//   "mradmm"          Modified R-ADMM, 003 Algorithm 2, eqs. (14)-(17)
//   "private_mradmm"  private MR-ADMM, 003 Algorithm 3, eqs. (18)-(19)
//   "pdml"            PDML, 000: randomized-response labels (Phase 1), debiased loss (19),
//                     objective perturbation (14) and primal perturbation (15)-(17). Uses C
//                     (the paper's (1) has C = 1), rho (= the paper's a, carried as a/N per
//                     node), eta (= the paper's beta) and the label_eps / pdml_* fields below;
//                     the other variants' parameters must keep their defaults (Validate).
// Per-node vectors (node_alpha, node_eta, node_q1, node_q2), when not empty, hold one value per
// node and replace the scalar for that node (heterogeneous budgets and penalties).
struct AlgorithmSpec {
  std::string name = "admm";
  double C = 1750.0;          // loss weight C (per node: C / B_i)
  double rho = 0.22;          // regulariser weight
  bool rho_per_node = false;  // false: each node carries rho / N (003's O(f, D_i));
                              // true: each node carries rho (004's DR-ERM (3))
  double eta = 0.5;           // ADMM penalty; M-ADMM theta; MR-ADMM base penalty
  bool random_start = false;  // f_i(0) ~ N(0, 1/d) per coordinate (seeded) instead of 0
  // Penalty growth: M-ADMM eta_i(t) = eta q1^(t-1) (002: eta_i(t+1) = theta q1^t);
  // MR-ADMM eta_i(2k-1) = eta q1^k (003 Fig. 5: eta_i(2k-1) = 1.04^k). Must be >= 1.
  double q1 = 1.0;
  // Privacy per iteration: alpha_i(t) = alpha q2^(t-1) (002); private MR-ADMM alpha_i(k) =
  // alpha q2^(k-1). alpha = 0 turns the noise off (the non-private algorithm).
  double alpha = 0.0;
  double q2 = 1.0;
  double gamma = 0.5;         // R-ADMM/MR-ADMM even-step term gamma >= 0 (003 eq. (10))
  double dual_step = 0.0;     // M-ADMM dual step theta (0 = eta_i(1))
  std::vector<double> node_alpha, node_eta, node_q1, node_q2;
  // Every node's privacy budget (as the paper of the algorithm states the loss), enforced by
  // the node's release: a round that would take the node's spent loss above it is refused and
  // the node freezes (resends its last release). The run ends with outcome "budget exhausted"
  // once every private node has frozen. 0 = no budget.
  double privacy_budget = 0.0;
  // Per-node budgets (one per node, each >= 0, 0 = none); replace privacy_budget when not empty.
  std::vector<double> node_privacy_budget;

  // PDML (name "pdml", 000) only.
  // Label privacy of every user: eps-LDP by randomized response (000 (12)-(13)); 0 = labels
  // reported truthfully (no Phase 1 randomization, plain loss). Finite, >= 0.
  double label_eps = 0.0;
  // Heterogeneous label privacy: group k has eps label_eps_groups[k] (0 = truthful) and each
  // user joins it with probability label_eps_shares[k] (seeded draw; shares > 0, sum 1).
  // Non-empty groups replace label_eps.
  std::vector<double> label_eps_groups, label_eps_shares;
  double pdml_R = 0.0;       // bound R of the objective noise ||eta_i||_2 <= R (14); 0 = none
  double pdml_V = 0.0;       // primal noise theta_i(t) ~ N(0, decay^(t-1) V^2 I) (16); 0 = none
  double pdml_decay = 0.8;   // decay rate of that variance, in (0, 1] (000 Fig. 3-4: 0.8)
};

struct RunSpec {
  DataSpec data;
  GraphSpec graph;
  PartitionSpec partition;
  Loss loss;
  AlgorithmSpec algorithm;
  NewtonOptions newton;
  int iterations = 100;        // ADMM rounds after round 0
  std::uint64_t seed = 1;
  std::string engine = "tbb";  // "tbb" | "serial"
  int threads = 0;             // 0 = all cores
  bool compute_optimum = true; // solve the centralized problem and report the distance to it
  // Stop early ("converged") once the relative change of the averaged model between rounds
  // is below this and the consensus gap relative to ||mean f|| is below it too; 0 = never.
  double tolerance = 0.0;
  // Compute metrics (and call the observer) every this many rounds, and always for the last
  // reported round; 0 = only for round 0 and the last round. Metrics cost O(N^2 d + test rows).
  int metrics_every = 1;

  void Validate() const;
};

}  // namespace dpadmm
