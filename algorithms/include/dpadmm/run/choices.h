// SPDX-License-Identifier: Apache-2.0
// Every choice of a run spec as an enum with ONE name table (name <-> enum <-> help text). The
// CLI, the JSON reader and writer, the wasm bindings and the error messages all go through these
// tables; nothing else compares choice strings.
//
//   Algorithm a = ParseChoice<Algorithm>("dvp", "algorithm.name");   // InputError if unknown
//   const char* name = ChoiceName(a);                                  // "dvp"
//   std::string list = ChoiceList<Algorithm>();                        // "admm | dvp | ..."
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "dpadmm/runtime/engine.h"
#include "dpadmm/solver/loss.h"

namespace dpadmm {

// The two families: consensus (horizontal: every node holds whole rows and the graph connects
// nodes) and vertical sharing (parties hold column blocks, a coordinator holds the labels).
enum class Family { kConsensus, kSharing };

enum class Algorithm {
  kAdmm,           // simplified decentralized ADMM, 004 eqs. (9)-(11)
  kDvp,            // dual variable perturbation, 004 Algorithm 2, eqs. (13)-(16)
  kPvp,            // primal variable perturbation
  kMadmm,          // M-ADMM with penalty perturbation, 002
  kRadmm,          // Recycled ADMM, 003 Algorithm 1, eqs. (10)-(13)
  kMradmm,         // Modified R-ADMM, 003 Algorithm 2, eqs. (14)-(17)
  kPrivateMradmm,  // private MR-ADMM, 003 Algorithm 3, eqs. (18)-(19)
  kPdml,           // PDML, 000
  kSharing,        // ADMM sharing over vertically partitioned features, 001 Algorithm 1 / (16)
  kSgd,            // the SGD-based baseline for distributed features of 001's experiments
  // The baselines of the consensus family (consensus/baseline_nodes.h), at the same epsilon:
  kLocal,    // every node alone: its own rows, one release (objective or Gaussian perturbation)
  kAverage,  // local's releases averaged by gossip (Metropolis-Hastings weights): no cost
  kCentral,  // one trusted curator holding every row, the same release: the ceiling
};
Family FamilyOf(Algorithm algorithm);

enum class DataSource { kTwonorm, kRingnorm, kSparse, kLibsvm, kAdult, kCsv, kAsc };
bool IsGenerated(DataSource source);

enum class Topology { kRing, kStar, kComplete, kGrid, kRandom, kFile };
enum class PartitionKind { kEven, kProportional, kDirichlet, kFile };
enum class TraceFormat { kCsv, kJsonLines };

// Where the noise of the private mechanisms comes from.
enum class NoiseMode {
  kPrivate,     // each node's key from the operating system's entropy, never output
  kSimulation,  // keys derived from RunSpec::noise_seed: reproducible, NOT private
};

// Which figures a run computes and outputs.
enum class MetricsScope {
  kAuto,          // released-only for a private algorithm in private mode, else all
  kReleasedOnly,  // only figures computed from released values (and public test data)
  kAll,           // also evaluation on private data, labelled as outside the guarantee
};

// How the consensus family weighs the rows in the nodes' problems (AlgorithmSpec::weighting).
enum class Weighting {
  kNode,  // every node's loss weight is C: each row of node i weighs C / B_i (a node's average)
  kRow,   // node i's loss weight is C B_i / B_bar: every row weighs C / B_bar (the centralized
          // problem), B_bar the mean rows per node
};

// How each node prepares its rows before training (data/preprocessing.h).
enum class Scaling {
  kAuto,  // standardize for a non-private algorithm or simulation mode on raw-unit
          // data (CSV or in-memory rows), else global-max-norm; in private mode public-bounds
          // when bounds are given, else clip-only (EffectiveScaling)
  kGlobalMaxNorm,  // one factor 1 / (largest row norm over all nodes): reads every party's data
  kPublicBounds,   // per-feature map from public bounds to [-1, 1] / sqrt(d), then clipping
  kClipOnly,       // x / max(1, ||x||) per record (no per-feature scaling)
  kDpBounds,       // public-bounds with bounds estimated under DP from every node's own rows
                   // (data.bounds_epsilon of each node's budget; privacy/bounds_release.h)
  kStandardize,    // centre and scale each feature by the training rows' mean and standard
                   // deviation, rows / sqrt(d), then clipping: reads every party's rows
  kDpStandardize,  // standardize with the mean and deviation estimated under DP from every
                   // node's own rows (data.standardize_epsilon of each node's budget;
                   // privacy/standardize_release.h)
  kNone,           // rows unchanged (the privacy analyses assume ||x|| <= 1)
};

// How a run ended. Outcomes, not errors: a bad spec is an InputError at construction.
enum class RunOutcome {
  kCompleted,        // ran every iteration
  kConverged,        // stopped early at the tolerance
  kCancelled,        // the stop token was triggered
  kDiverged,         // a node produced a non-finite value (the message names node and round)
  kBudgetExhausted,  // stopped before a round that would exceed the privacy budget
  kFailed,           // a node program threw (the message names node and round)
};

template <class E>
struct Choice {
  E value;
  const char* name;
  const char* help;
};

// The table of enum E (specialised for every enum above, and for LossKind and
// runtime::EngineKind).
template <class E>
std::span<const Choice<E>> Choices();

template <>
std::span<const Choice<Family>> Choices();
template <>
std::span<const Choice<Algorithm>> Choices();
template <>
std::span<const Choice<DataSource>> Choices();
template <>
std::span<const Choice<Topology>> Choices();
template <>
std::span<const Choice<PartitionKind>> Choices();
template <>
std::span<const Choice<TraceFormat>> Choices();
template <>
std::span<const Choice<NoiseMode>> Choices();
template <>
std::span<const Choice<MetricsScope>> Choices();
template <>
std::span<const Choice<Weighting>> Choices();
template <>
std::span<const Choice<Scaling>> Choices();
template <>
std::span<const Choice<RunOutcome>> Choices();
template <>
std::span<const Choice<LossKind>> Choices();
template <>
std::span<const Choice<runtime::EngineKind>> Choices();

// The name of `value` in its table.
template <class E>
const char* ChoiceName(E value) {
  for (const Choice<E>& c : Choices<E>()) {
    if (c.value == value) return c.name;
  }
  return "?";
}

// "a | b | c": the names of the table, for help texts.
template <class E>
std::string ChoiceList(const char* separator = " | ") {
  std::string out;
  for (const Choice<E>& c : Choices<E>()) {
    if (!out.empty()) out += separator;
    out += c.name;
  }
  return out;
}

[[noreturn]] void ThrowBadChoice(std::string_view field, std::string_view got,
                                 const std::string& options);

// The enum named `text`; throws InputError "FIELD must be one of a, b, c; got 'x'".
template <class E>
E ParseChoice(std::string_view text, std::string_view field) {
  for (const Choice<E>& c : Choices<E>()) {
    if (text == c.name) return c.value;
  }
  ThrowBadChoice(field, text, ChoiceList<E>(", "));
}

// ToString(RunOutcome): its table name ("budget exhausted").
inline const char* ToString(RunOutcome outcome) { return ChoiceName(outcome); }

}  // namespace dpadmm
