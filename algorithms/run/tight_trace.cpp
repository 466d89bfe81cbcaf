// SPDX-License-Identifier: Apache-2.0
#include "run/tight_trace.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "dpadmm/privacy/accountant.h"
#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

// One distinct cost sequence (shared by the nodes that released the same terms so far).
struct TightTrace::Group {
  std::vector<double> terms;     // every round's term, zeros included (for the dominance test)
  std::vector<double> positive;  // the costly releases, in order: ComposeTight's input
  double sum = 0.0;              // ComposeBasic(positive), summed in the same order
  bool identical = true;         // every positive term equals positive.front()
  // The same releases, composed incrementally: the Accountant folds each pure-epsilon release
  // once, in order, so its distribution after round t has the bits of a batch composition of
  // rounds 1..t (ComposeTight's), whenever the queries come.
  Accountant accountant{ComposeTightOptions()};
  double epsilon = 0.0;  // cached answer
  bool cached = true;

  void Add(double cost) {
    terms.push_back(cost);
    if (!(cost > 0.0)) return;
    if (!positive.empty() && cost != positive.front()) identical = false;
    positive.push_back(cost);
    sum += cost;
    accountant.AddPureEpsilon(cost);
    cached = false;
  }

  double Epsilon(double delta) {
    if (cached) return epsilon;
    if (positive.empty()) {
      epsilon = 0.0;
    } else if (identical) {
      // ComposeTight's closed form for equal terms.
      epsilon = std::min(OptimalCompositionEpsilon(
                             positive.front(), static_cast<std::int64_t>(positive.size()), delta),
                         sum);
    } else {
      epsilon = std::min(accountant.Epsilon(delta), sum);
    }
    cached = true;
    return epsilon;
  }
};

TightTrace::TightTrace(int nodes, double delta)
    : delta_(delta), group_of_(static_cast<std::size_t>(nodes), 0) {
  groups_.push_back(std::make_unique<Group>());
}
TightTrace::~TightTrace() = default;
TightTrace::TightTrace(TightTrace&&) noexcept = default;
TightTrace& TightTrace::operator=(TightTrace&&) noexcept = default;

void TightTrace::AddRound(const std::vector<double>& costs) {
  // Refine the groups: nodes of one group stay together iff their terms this round are equal.
  std::vector<std::vector<double>> split(groups_.size());  // old group -> its distinct costs
  for (std::size_t i = 0; i < group_of_.size(); ++i) {
    auto& c = split[static_cast<std::size_t>(group_of_[i])];
    if (std::find(c.begin(), c.end(), costs[i]) == c.end()) c.push_back(costs[i]);
  }
  std::map<std::pair<int, double>, int> index;  // (old group, cost) -> new group
  std::vector<std::unique_ptr<Group>> groups;
  for (std::size_t g = 0; g < split.size(); ++g) {
    for (std::size_t k = 0; k < split[g].size(); ++k) {
      // Copies first; the last new group takes the old one over.
      std::unique_ptr<Group> group =
          k + 1 < split[g].size() ? std::make_unique<Group>(*groups_[g]) : std::move(groups_[g]);
      group->Add(split[g][k]);
      index.emplace(std::make_pair(static_cast<int>(g), split[g][k]),
                    static_cast<int>(groups.size()));
      groups.push_back(std::move(group));
    }
  }
  for (std::size_t i = 0; i < group_of_.size(); ++i) {
    group_of_[i] = index.at(std::make_pair(group_of_[i], costs[i]));
  }
  groups_ = std::move(groups);
}

double TightTrace::MaxEpsilon() {
  double best = 0.0;
  for (std::size_t k = 0; k < groups_.size(); ++k) {
    bool dominated = false;
    for (std::size_t j = 0; j < groups_.size() && !dominated; ++j) {
      if (j == k) continue;
      const auto& a = groups_[k]->terms;
      const auto& b = groups_[j]->terms;
      bool below = true;
      for (std::size_t t = 0; t < a.size() && below; ++t) below = a[t] <= b[t];
      // Equal sequences are one group, so `below` means strictly dominated somewhere.
      dominated = below;
    }
    if (!dominated) best = std::max(best, groups_[k]->Epsilon(delta_));
  }
  return best;
}

std::optional<double> TightTrace::NodeEpsilon(int node, const std::vector<double>& positive) {
  if (node < 0 || static_cast<std::size_t>(node) >= group_of_.size()) return std::nullopt;
  Group& group = *groups_[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(node)])];
  if (group.positive != positive) return std::nullopt;
  return group.Epsilon(delta_);
}

}  // namespace dpadmm
