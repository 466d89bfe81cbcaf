// SPDX-License-Identifier: Apache-2.0
// Recording a run's rounds and comparing two runs bit for bit (both families).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "dpadmm/run/run.h"
#include "dpadmm/run/spec_json.h"

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

// Every trace column (TraceColumns, both families) but wall time must have the same bits in
// both runs.
inline void ExpectSameBits(const std::vector<RoundMetrics>& a, const std::vector<RoundMetrics>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    for (const TraceColumn& c : TraceColumns()) {
      if (c.integer != nullptr) {
        EXPECT_EQ(a[k].*c.integer, b[k].*c.integer) << c.name << " in row " << k;
      } else if (c.scalar != nullptr) {
        if (c.scalar == &RoundMetrics::seconds) continue;
        EXPECT_TRUE(SameBits(a[k].*c.scalar, b[k].*c.scalar))
            << c.name << " in round " << a[k].round << ": " << a[k].*c.scalar << " vs "
            << b[k].*c.scalar;
      } else {
        // Bit for bit, so that a per-node column of NaN (no such figure: pvp's Gaussian variant
        // has no per-round pure epsilon) compares equal to itself.
        const auto& x = a[k].*c.per_node;
        const auto& y = b[k].*c.per_node;
        EXPECT_TRUE(x.size() == y.size() &&
                    std::equal(x.begin(), x.end(), y.begin(),
                               [](double u, double v) { return SameBits(u, v); }))
            << c.name << " in round " << a[k].round;
      }
    }
  }
}

}  // namespace dpadmm::test
