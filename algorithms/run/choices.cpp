// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/run/choices.h"

#include "dpadmm/core/error.h"

namespace dpadmm {

void ThrowBadChoice(std::string_view field, std::string_view got, const std::string& options) {
  throw InputError(std::string(field) + " must be one of " + options + "; got '" +
                   std::string(got) + "'");
}

template <>
std::span<const Choice<Algorithm>> Choices() {
  static constexpr Choice<Algorithm> kTable[] = {
      {Algorithm::kAdmm, "admm", "simplified decentralized ADMM (004 eqs. (9)-(11)), not private"},
      {Algorithm::kDvp, "dvp", "dual variable perturbation (004 Algorithm 2)"},
      {Algorithm::kPvp, "pvp", "primal variable perturbation (exact update, release f + noise)"},
      {Algorithm::kMadmm, "madmm", "M-ADMM with penalty perturbation (002)"},
      {Algorithm::kRadmm, "radmm", "Recycled ADMM (003 Algorithm 1), not private"},
      {Algorithm::kMradmm, "mradmm", "Modified R-ADMM (003 Algorithm 2), not private"},
      {Algorithm::kPrivateMradmm, "private_mradmm", "private MR-ADMM (003 Algorithm 3)"},
      {Algorithm::kPdml, "pdml", "PDML: label privacy by randomized response (000)"},
      {Algorithm::kLocal, "local",
       "baseline: every node trains alone on its own rows and releases once (objective or "
       "Gaussian perturbation at --epsilon); test error averaged over the nodes' own models"},
      {Algorithm::kAverage, "average",
       "baseline: local's releases, then averaged by gossip (post-processing, no cost)"},
      {Algorithm::kCentral, "central",
       "baseline, NEEDS A CURATOR EVERY PARTY TRUSTS with its rows: one node holds every row and "
       "releases once with local's mechanism (the ceiling)"},
      {Algorithm::kSharing, "sharing",
       "ADMM sharing over vertically partitioned features (001 Algorithm 1; private with dp)"},
      {Algorithm::kSgd, "sgd", "SGD baseline for vertically partitioned features (001)"},
  };
  return kTable;
}

Family FamilyOf(Algorithm algorithm) {
  return algorithm == Algorithm::kSharing || algorithm == Algorithm::kSgd ? Family::kSharing
                                                                          : Family::kConsensus;
}

template <>
std::span<const Choice<Family>> Choices() {
  static constexpr Choice<Family> kTable[] = {
      {Family::kConsensus, "consensus", "nodes hold rows and agree on one model over a graph"},
      {Family::kSharing, "sharing", "parties hold column blocks, a coordinator the labels"},
  };
  return kTable;
}

template <>
std::span<const Choice<DataSource>> Choices() {
  static constexpr Choice<DataSource> kTable[] = {
      {DataSource::kTwonorm, "twonorm", "generated: two Gaussians (Breiman)"},
      {DataSource::kRingnorm, "ringnorm", "generated: ringnorm (Breiman)"},
      {DataSource::kSparse, "sparse", "generated: sparse high-dimensional"},
      {DataSource::kLibsvm, "libsvm", "LIBSVM text file"},
      {DataSource::kAdult, "adult", "raw UCI Adult CSV (adult.data + adult.test)"},
      {DataSource::kCsv, "csv", "CSV with a label column"},
      {DataSource::kAsc, "asc", "whitespace matrix with a separate labels file"},
  };
  return kTable;
}

bool IsGenerated(DataSource source) {
  return source == DataSource::kTwonorm || source == DataSource::kRingnorm ||
         source == DataSource::kSparse;
}

template <>
std::span<const Choice<Topology>> Choices() {
  static constexpr Choice<Topology> kTable[] = {
      {Topology::kRing, "ring", "a cycle"},
      {Topology::kStar, "star", "node 0 connected to all others"},
      {Topology::kComplete, "complete", "every pair connected"},
      {Topology::kGrid, "grid", "a 2-D grid"},
      {Topology::kRandom, "random", "a random connected graph with graph.edges edges"},
      {Topology::kFile, "file", "an edge list file"},
  };
  return kTable;
}

template <>
std::span<const Choice<PartitionKind>> Choices() {
  static constexpr Choice<PartitionKind> kTable[] = {
      {PartitionKind::kEven, "even", "equal shares (seeded shuffle)"},
      {PartitionKind::kProportional, "proportional", "shares proportional to given weights"},
      {PartitionKind::kDirichlet, "dirichlet", "shares drawn from a Dirichlet distribution"},
      {PartitionKind::kFile, "file", "line k of a file names the node of training row k"},
  };
  return kTable;
}

template <>
std::span<const Choice<TraceFormat>> Choices() {
  static constexpr Choice<TraceFormat> kTable[] = {
      {TraceFormat::kCsv, "csv", "one header line, one row per round"},
      {TraceFormat::kJsonLines, "jsonl", "one JSON object per round and line"},
  };
  return kTable;
}

template <>
std::span<const Choice<NoiseMode>> Choices() {
  static constexpr Choice<NoiseMode> kTable[] = {
      {NoiseMode::kPrivate, "private", "noise keys from the operating system's entropy"},
      {NoiseMode::kSimulation, "simulation", "noise reproducible from the seed (not private)"},
  };
  return kTable;
}

template <>
std::span<const Choice<MetricsScope>> Choices() {
  static constexpr Choice<MetricsScope> kTable[] = {
      {MetricsScope::kAuto, "auto",
       "released-only for a private algorithm in private mode, else all"},
      {MetricsScope::kReleasedOnly, "released-only",
       "only figures computed from released values and public test data"},
      {MetricsScope::kAll, "all",
       "also evaluation on private data (labelled: outside the guarantee)"},
  };
  return kTable;
}

template <>
std::span<const Choice<Weighting>> Choices() {
  static constexpr Choice<Weighting> kTable[] = {
      {Weighting::kNode, "node", "each node's loss weighs C: a row of node i weighs C / B_i"},
      {Weighting::kRow, "row",
       "node i's loss weighs C B_i / B_bar: every row weighs C / B_bar (the centralized "
       "problem; B_bar the mean rows per node)"},
  };
  return kTable;
}

template <>
std::span<const Choice<Scaling>> Choices() {
  static constexpr Choice<Scaling> kTable[] = {
      {Scaling::kAuto, "auto",
       "non-private or simulation runs: standardize on raw-unit data (CSV or in-memory rows "
       "with a training value outside [-1, 1]), else global-max-norm; private mode: public-bounds "
       "if bounds "
       "are given, else clip-only (dp-standardize only when asked for: it spends budget)"},
      {Scaling::kGlobalMaxNorm, "global-max-norm",
       "divide every row by the largest row norm over all nodes (reads all parties' data: not "
       "in private mode)"},
      {Scaling::kPublicBounds, "public-bounds",
       "per-feature map of public bounds to [-1, 1] / sqrt(d), then clip each row to norm 1"},
      {Scaling::kClipOnly, "clip-only", "clip each row to norm 1: x / max(1, ||x||)"},
      {Scaling::kDpBounds, "dp-bounds",
       "public-bounds with per-feature bounds estimated under DP from each node's own rows "
       "(spends --bounds-epsilon of each node's budget)"},
      {Scaling::kStandardize, "standardize",
       "centre and scale each feature by the training rows' mean and standard deviation, "
       "divide rows by sqrt(d), then clip each row to norm 1 (reads all parties' data: not in "
       "private mode; dense rows only)"},
      {Scaling::kDpStandardize, "dp-standardize",
       "standardize with each feature's mean and deviation estimated under DP from each "
       "node's own rows clipped to public bounds or dp-bounds' (spends "
       "--standardize-epsilon of each node's budget)"},
      {Scaling::kNone, "none", "rows unchanged"},
  };
  return kTable;
}

template <>
std::span<const Choice<RunOutcome>> Choices() {
  static constexpr Choice<RunOutcome> kTable[] = {
      {RunOutcome::kCompleted, "completed", "ran every iteration"},
      {RunOutcome::kConverged, "converged", "stopped early at the tolerance"},
      {RunOutcome::kCancelled, "cancelled", "stopped on request"},
      {RunOutcome::kDiverged, "diverged", "a node produced a non-finite value"},
      {RunOutcome::kBudgetExhausted, "budget exhausted",
       "stopped before a round that would exceed the privacy budget"},
      {RunOutcome::kFailed, "failed", "a node program failed (exception)"},
  };
  return kTable;
}

template <>
std::span<const Choice<LossKind>> Choices() {
  static constexpr Choice<LossKind> kTable[] = {
      {LossKind::kLogistic, "logistic", "log(1 + exp(-z))"},
      {LossKind::kSmoothHinge, "smooth_hinge", "Huber hinge with half-width loss.huber_h"},
  };
  return kTable;
}

template <>
std::span<const Choice<runtime::EngineKind>> Choices() {
  static constexpr Choice<runtime::EngineKind> kTable[] = {
      {runtime::EngineKind::kTbb, "tbb", "parallel (oneTBB)"},
      {runtime::EngineKind::kSerial, "serial", "one thread; bitwise-identical results"},
      {runtime::EngineKind::kMpi, "mpi",
       "one process per rank: mpirun -n K dpadmm run --engine mpi"},
  };
  return kTable;
}

}  // namespace dpadmm
