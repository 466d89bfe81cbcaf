// SPDX-License-Identifier: Apache-2.0
// Recording a run's rounds and comparing two runs bit for bit (both families).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/run/run.h"

namespace dpadmm::test {

// Keeps what the observer is given.
struct RunRecorder : RunObserver {
  RunInfo info;
  std::vector<RoundMetrics> rounds;
  void OnStart(const RunInfo& i) override { info = i; }
  void OnRound(const RoundMetrics& m) override { rounds.push_back(m); }
};

// Equal as bit patterns (so NaN == NaN, and 0.0 != -0.0).
inline bool SameBits(double a, double b) {
  std::uint64_t ua, ub;
  std::memcpy(&ua, &a, sizeof ua);
  std::memcpy(&ub, &b, sizeof ub);
  return ua == ub;
}

// Every metric but wall time must have the same bits in both runs.
inline void ExpectSameBits(const std::vector<RoundMetrics>& a, const std::vector<RoundMetrics>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].round, b[k].round);
    const std::pair<const char*, double RoundMetrics::*> fields[] = {
        {"train_loss", &RoundMetrics::train_loss},
        {"objective", &RoundMetrics::objective},
        {"test_error", &RoundMetrics::test_error},
        {"consensus_gap", &RoundMetrics::consensus_gap},
        {"distance_to_optimum", &RoundMetrics::distance_to_optimum},
        {"privacy_loss", &RoundMetrics::privacy_loss},
        {"privacy_round", &RoundMetrics::privacy_round},
        {"test_loss", &RoundMetrics::test_loss},
        {"primal_residual", &RoundMetrics::primal_residual},
        {"max_x_norm", &RoundMetrics::max_x_norm},
        {"y_norm", &RoundMetrics::y_norm},
        {"epsilon_iteration", &RoundMetrics::epsilon_iteration},
        {"delta_iteration", &RoundMetrics::delta_iteration},
        {"epsilon_total", &RoundMetrics::epsilon_total},
        {"delta_total", &RoundMetrics::delta_total}};
    for (const auto& [name, field] : fields) {
      EXPECT_TRUE(SameBits(a[k].*field, b[k].*field))
          << name << " in round " << a[k].round << ": " << a[k].*field << " vs " << b[k].*field;
    }
    EXPECT_EQ(a[k].node_privacy, b[k].node_privacy) << "round " << a[k].round;
    EXPECT_EQ(a[k].node_noise, b[k].node_noise) << "round " << a[k].round;
  }
}

}  // namespace dpadmm::test
