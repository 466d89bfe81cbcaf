// SPDX-License-Identifier: Apache-2.0
// Internal to run/: the tight epsilon spent so far, per round, for the trace
// (RoundMetrics::tight_epsilon), equal bit for bit to what the summary's end-of-run accounting
// (ComposeTight of each node's released costs) gives for the same prefix of rounds.
//
// Cost: nodes whose cost sequences are equal share one composition (the partition into groups
// is refined as the sequences diverge); each group composes incrementally (its Accountant folds
// each round's release once, O(grid), and a query inverts delta(eps) in O(grid): no
// recomposition from round 1; a run of equal terms is one closed form, Kairouz, Oh and
// Viswanath 2015); only reported rounds are queried, and only groups that no other group
// dominates term by term (their figure cannot be the max). Memory: O(grid) per group.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace dpadmm {

class TightTrace {
 public:
  TightTrace(int nodes, double delta);
  ~TightTrace();
  TightTrace(TightTrace&&) noexcept;
  TightTrace& operator=(TightTrace&&) noexcept;

  // One round: costs[i] is node i's pure-epsilon term of the round (0: released nothing that
  // costs privacy, e.g. a frozen node or an even MR-ADMM round).
  void AddRound(const std::vector<double>& costs);
  // max over nodes of ComposeTight(node's terms so far, delta); 0 before any costly release.
  double MaxEpsilon();
  // ComposeTight(node's terms so far, delta), bits included, when `positive` (the node's costly
  // terms in order, zeros left out) are the terms this trace composed for `node`: the group's
  // composition is reused (a query, O(grid), instead of a fold per term). nullopt otherwise.
  std::optional<double> NodeEpsilon(int node, const std::vector<double>& positive);

 private:
  struct Group;
  double delta_;
  std::vector<int> group_of_;  // node -> index into groups_
  std::vector<std::unique_ptr<Group>> groups_;
};

}  // namespace dpadmm
