// SPDX-License-Identifier: Apache-2.0
// The release point: the one place where a node's outgoing values leave it.
//
// Every node program owns one Release. Each round it
//   1. opens the round with the privacy cost the round's release will have (the paper's
//      per-round term, computed by the program with the free functions of accounting.h);
//      the release REFUSES a round whose cost would take the node's spent loss above its
//      budget, and the node FREEZES: from then on it resends its last release (post-processing,
//      no further cost) and does no further private computation;
//   2. draws the round's noise (only while a round is open), from the node's keyed stream
//      KeyedStream(key, round, kNoise) (noise_key.h: ChaCha20 under the node's secret key, or
//      under a key derived from the run's noise seed in simulation mode): one stream per round,
//      successive draws continue it;
//   3. sends the round's message, which debits the cost and keeps a copy for resending. Once
//      the node has drawn any noise, every message it sends is rounded to the grid of
//      samplers.h (multiples of 2^-16, clamped): the continuous noises are "snapped" there
//      (privacy/README.md), the discrete Gaussian is exact on it.
// A node's programs never write their outgoing buffer themselves: the release fills it
// (Send, Resend, SendInitial, SendNothing). Metrics only read spent(), frozen(), frozen_round().
//
// Budget 0 means no budget (never refuses). A release whose rounds all cost 0 is the identity
// release of a non-private algorithm: it never freezes and reports spent() = 0.
//
// Misuse (drawing or sending outside an open round, opening twice, resending before anything
// was sent) is a programming error and throws std::logic_error.
//
// Thread safety: none; a Release belongs to one node program, which the engine never runs
// concurrently with itself.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "dpadmm/core/random.h"
#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/noise_key.h"
#include "dpadmm/runtime/node_program.h"

namespace dpadmm {

class Release {
 public:
  // `key` is the node's noise key (moved in: the release is its only holder); `node` names the
  // node in errors; `budget` >= 0 (0 = none).
  Release(NoiseKey key, std::uint64_t node, double budget = 0.0);

  // Round 0: sends the node's initial value, which depends on no private data (zeros or the
  // seeded random start): no noise, no cost.
  void SendInitial(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out);

  // Opens round `round` >= 1 at privacy cost `cost` >= 0 (the paper's per-round term, which the
  // budget debits). Returns false when the node is frozen: it froze before, or it freezes now
  // because spent() + cost > budget (budget > 0). The caller then resends (Resend) and computes
  // nothing. `mechanism`: what the round's release is as a mechanism (accountant.h); Send and
  // SendNothing record it in mechanisms(), the input of the tight accounting.
  bool Open(std::int64_t round, double cost,
            const std::optional<MechanismRelease>& mechanism = std::nullopt);

  // The open round's noise (draw order as the samplers of noise.h document).
  // l2-Laplace-type noise, density proportional to exp(-a ||e||) (004, 003, PVP), drawn in
  // double precision: from then on the node's releases are snapped (RoundToSnapGrid: 21
  // significant bits above 32) and each debits the floating-point delta
  // SnappedReleaseDelta(cost, d) (accounting.h).
  void DrawL2Laplace(double a, Eigen::Ref<Eigen::VectorXd> out);
  // N(0, sigma^2 I) (000 eq. (16)) as the exact discrete Gaussian on the lattice step Z^d,
  // variance rounded up (samplers.h). Returns the step: the caller releases
  // RoundToGrid(value, step) + out, which is exact (both on the lattice).
  double DrawGaussian(double sigma, Eigen::Ref<Eigen::VectorXd> out);
  // sigma * factor * u, u ~ N(0, I_k), factor d x k (001 eq. (16): N(0, sigma^2 (D^T D)^{-1})).
  void DrawCorrelatedGaussian(const Eigen::MatrixXd& factor, double sigma,
                              Eigen::Ref<Eigen::VectorXd> out);

  // Noise drawn once per node before round 1 and kept for the whole run (000 eq. (14): the
  // bounded objective perturbation, uniform in the l2 ball of radius R), from
  // KeyedStream(key, 0, kObjectiveNoise). At most once, before the first Open. No cost
  // (000 states none for Phase 2).
  void DrawObjectiveNoise(double R, Eigen::Ref<Eigen::VectorXd> out);

  // Closes the open round: debits its cost, keeps a copy of `message` and writes it to `out`.
  void Send(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out);
  // Closes the open round with an empty message (a phase in which the node has nothing to
  // say); debits the round's cost (normally 0).
  void SendNothing(runtime::Outbox& out);
  // A frozen node's message: its last release, bit for bit (post-processing: no cost).
  void Resend(runtime::Outbox& out) const;
  // Closes the open round with `message`, a function of values already released (the node's own
  // and its neighbours': the baselines' resent release and gossip averages): post-processing,
  // so it costs nothing, adds no floating-point delta and is sent as computed (not snapped).
  // The round must have been opened at cost 0 without a mechanism (std::logic_error otherwise).
  // Not counted in releases().
  void SendPostProcessed(const Eigen::Ref<const Eigen::VectorXd>& message, runtime::Outbox& out);

  double budget() const { return budget_; }
  double spent() const { return spent_; }
  // The delta the snapped releases so far add to the node's figures: the sum over them of
  // SnappedReleaseDelta(the round's cost, d) (0 for a node that never drew l2-Laplace noise).
  double spent_delta() const { return spent_delta_; }
  bool frozen() const { return frozen_; }
  // The round whose release was refused, or -1.
  std::int64_t frozen_round() const { return frozen_round_; }
  // Noise draws so far (each Draw* call counts one; tests check that noise moves only here).
  std::int64_t draws() const { return draws_; }
  // Messages released by Send/SendInitial (not counting resends and empty messages).
  std::int64_t releases() const { return releases_; }
  // The last message sent (SendInitial, Send, SendPostProcessed), as sent; empty before any.
  const Eigen::VectorXd& last() const { return last_; }
  // The mechanisms of the rounds closed so far (those opened with one), in order.
  const std::vector<MechanismRelease>& mechanisms() const { return mechanisms_; }

  // The release's state between rounds (no round open), for checkpoints: everything but the
  // key, which is never saved (a restored release keeps the key it was built with). The round's
  // noise stream is not part of it: every round opens a fresh stream keyed by its number.
  struct State {
    double spent = 0.0;
    double spent_delta = 0.0;
    bool snapped = false;
    bool frozen = false;
    std::int64_t frozen_round = -1;
    std::int64_t round = 0;
    double cost = 0.0;
    bool objective_noise_drawn = false;
    bool started = false;
    Eigen::VectorXd last;
    bool has_last = false;
    std::int64_t draws = 0;
    std::int64_t releases = 0;
    std::vector<MechanismRelease> mechanisms;
  };
  // Throws std::logic_error while a round is open.
  State SaveState() const;
  // Throws InputError (naming the node) for a state no release could have: negative counts or
  // spent, a spent loss above the budget.
  void RestoreState(State state);

 private:
  KeyedStream& RoundStream(const char* what);
  void Write(runtime::Outbox& out) const;
  void RequireOpen(const char* what) const;

  NoiseKey key_;
  std::uint64_t node_;
  double budget_;
  double spent_ = 0.0;
  double spent_delta_ = 0.0;
  bool snapped_ = false;  // l2-Laplace noise was drawn: releases are snapped and clamped
  bool frozen_ = false;
  std::int64_t frozen_round_ = -1;
  bool open_ = false;
  std::int64_t round_ = 0;
  double cost_ = 0.0;
  bool objective_noise_drawn_ = false;
  bool started_ = false;  // a round was opened
  std::optional<KeyedStream> stream_;
  Eigen::VectorXd last_;
  bool has_last_ = false;
  std::int64_t draws_ = 0;
  std::int64_t releases_ = 0;
  std::optional<MechanismRelease> mechanism_;  // the open round's
  std::vector<MechanismRelease> mechanisms_;
  // Multiplies the scale of every noise this release draws; 1 except in the privacy audit's
  // tests, which weaken a mechanism on purpose (privacy/noise_weakening.h: set only by a
  // private, test-only scope, read once here at construction; no spec field reaches it).
  double noise_scale_ = 1.0;
};

}  // namespace dpadmm
